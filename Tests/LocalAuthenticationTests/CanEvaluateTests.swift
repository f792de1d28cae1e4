import Foundation
import LocalAuthCore
import LocalAuthentication
import Testing

@Suite("canEvaluatePolicy")
struct CanEvaluateTests {
  @Test("ready user: both policies can be evaluated, error stays nil, biometryType is set")
  func ready() throws {
    let environment = try TestEnvironment.ready()
    let context = environment.context()
    #expect(context.biometryType == .none)
    var error: NSError?
    #expect(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
    #expect(error == nil)
    #expect(context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
    #expect(error == nil)
    #expect(context.biometryType == .touchID)
  }

  @Test("nil error pointer is accepted")
  func nilPointer() throws {
    let environment = TestEnvironment()
    #expect(!environment.context().canEvaluatePolicy(.deviceOwnerAuthentication, error: nil))
  }

  @Test("no sensor: biometryNotAvailable for policy 1, biometryType none")
  func noSensor() throws {
    let environment = TestEnvironment(modality: nil)
    try environment.setPasscode()
    let context = environment.context()
    var error: NSError?
    #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
    #expect(error?.code == LAError.biometryNotAvailable.rawValue)
    #expect(error?.domain == LAErrorDomain)
    #expect(context.biometryType == .none)
    // Policy 2 goes straight to the passcode: no error.
    #expect(context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
  }

  @Test("not enrolled: biometryNotEnrolled, and biometryType is set whatever the result")
  func notEnrolled() throws {
    let environment = TestEnvironment(modality: .faceID)
    try environment.setPasscode()
    let context = environment.context()
    var error: NSError?
    #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
    #expect(error?.code == -7)
    #expect(context.biometryType == .faceID)
  }

  @Test("no passcode: passcodeNotSet for both policies")
  func passcodeNotSet() throws {
    let environment = TestEnvironment()
    try environment.enroll("right-index")
    let context = environment.context()
    var error: NSError?
    #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
    #expect(error?.code == LAError.passcodeNotSet.rawValue)
    error = nil
    #expect(!context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
    #expect(error?.code == -5)
  }

  @Test("locked out: biometryLockout for policy 1, policy 2 still possible")
  func lockout() throws {
    let environment = try TestEnvironment.ready()
    try environment.store.update(try environment.userName) { $0.biometricFailures = 5 }
    let context = environment.context()
    var error: NSError?
    #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
    #expect(error?.code == -8)
    error = nil
    #expect(context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
    #expect(error == nil)
  }

  @Test("caller may not read the state: fails with biometryNotAvailable, never true")
  func permissionDenied() async throws {
    let environment = TestEnvironment(store: DeniedStateStore())
    let context = environment.context()
    var error: NSError?
    #expect(!context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
    #expect(error?.code == LAError.biometryNotAvailable.rawValue)
    #expect((error?.userInfo[NSDebugDescriptionErrorKey] as? String)?.contains("Permission denied") == true)
    let (success, evaluateError) = await evaluate(context, .deviceOwnerAuthentication)
    #expect(!success)
    #expect(laCode(evaluateError) == .biometryNotAvailable)
    #expect(environment.transcript.isEmpty)
  }

  @Test("after invalidate(): invalidContext")
  func invalidated() throws {
    let environment = try TestEnvironment.ready()
    let context = environment.context()
    context.invalidate()
    var error: NSError?
    #expect(!context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
    #expect(error?.code == LAError.invalidContext.rawValue)
  }

  @Test("an invalid user name fails closed")
  func invalidUser() {
    let environment = TestEnvironment(user: "../etc")
    var error: NSError?
    #expect(!environment.context().canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
    #expect(error?.code == -6)
  }
}
