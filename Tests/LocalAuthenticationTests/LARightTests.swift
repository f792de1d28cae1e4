import Foundation
import LocalAuthCore
import LocalAuthentication
import Testing

/// A right created in `environment` (it captures the task's configuration, as `LARight()` does in an app).
func right(_ environment: TestEnvironment, _ requirement: LAAuthenticationRequirement? = nil) -> LARight {
  LAContext.$defaultConfiguration.withValue(environment.configuration) {
    requirement.map { LARight(requirement: $0) } ?? LARight()
  }
}

/// The error `body` throws, or nil.
func thrown(_ body: () async throws -> Void) async -> (any Error)? {
  do {
    try await body()
    return nil
  } catch {
    return error
  }
}

@Suite("LARight")
struct LARightTests {
  @Test("a new right is unknown with tag 0; authorize with the owner's finger makes it authorized")
  func authorizeSuccess() async throws {
    let environment = try TestEnvironment.ready()
    let loginRight = right(environment)
    #expect(loginRight.state == .unknown)
    #expect(loginRight.tag == 0)
    loginRight.tag = 7
    environment.touch()
    try await loginRight.authorize(localizedReason: "open the notes")
    #expect(loginRight.state == .authorized)
    #expect(loginRight.tag == 7)
    #expect(environment.transcript.last == "info: Place your finger on the sensor to open the notes.")
  }

  @Test("wrong fingers: authorize throws authenticationFailed and the right is not authorized")
  func wrongFingers() async throws {
    let environment = try TestEnvironment.ready()
    let biometricRight = right(environment, .biometry)
    for _ in 0..<3 { environment.impostor() }
    let error = await thrown { try await biometricRight.authorize(localizedReason: "open the notes") }
    #expect(laCode(error) == .authenticationFailed)
    #expect(error is LAError)
    #expect(biometricRight.state == .notAuthorized)
  }

  @Test("deauthorize makes an authorized right not authorized; it can be authorized again")
  func deauthorize() async throws {
    let environment = try TestEnvironment.ready()
    let loginRight = right(environment)
    environment.touch()
    try await loginRight.authorize(localizedReason: "open the notes")
    await loginRight.deauthorize()
    #expect(loginRight.state == .notAuthorized)
    environment.touch()
    try await loginRight.authorize(localizedReason: "open the notes")
    #expect(loginRight.state == .authorized)
  }

  @Test("the completion forms: authorize, checkCanAuthorize and deauthorize call back once")
  func completionForms() async throws {
    let environment = try TestEnvironment.ready()
    let loginRight = right(environment)
    environment.touch()
    let authorized: (any Error)? = await withCheckedContinuation { continuation in
      loginRight.authorize(localizedReason: "open the notes") { continuation.resume(returning: $0) }
    }
    #expect(authorized == nil)
    #expect(loginRight.state == .authorized)
    let check: (any Error)? = await withCheckedContinuation { continuation in
      loginRight.checkCanAuthorize { continuation.resume(returning: $0) }
    }
    #expect(check == nil)
    await withCheckedContinuation { continuation in loginRight.deauthorize { continuation.resume() } }
    #expect(loginRight.state == .notAuthorized)
  }

  @Test("the state is authorizing while the prompt waits")
  func authorizingWhileWaiting() async throws {
    let box = RightBox()
    let seen = StateLog()
    let environment = TestEnvironment(wrapSensor: { inner in HookSensor(inner) { if let right = box.right { seen.append(right.state) } } })
    try environment.enroll("right-index")
    try environment.setPasscode()
    try environment.unlockWithPasscode()
    let loginRight = right(environment)
    box.right = loginRight
    environment.touch()
    try await loginRight.authorize(localizedReason: "open the notes")
    #expect(seen.states == [.authorizing])
    #expect(loginRight.state == .authorized)
  }

  @Test("deauthorize while authorize waits: the prompt ends with appCancel and the right stays not authorized")
  func deauthorizeWhileWaiting() async throws {
    let box = RightBox()
    let environment = TestEnvironment(wrapSensor: { inner in
      HookSensor(inner) { box.right?.deauthorize {} }
    })
    try environment.enroll("right-index")
    try environment.setPasscode()
    try environment.unlockWithPasscode()
    let loginRight = right(environment, .biometry)
    box.right = loginRight
    environment.touch()
    let error = await thrown { try await loginRight.authorize(localizedReason: "open the notes") }
    #expect(laCode(error) == .appCancel)
    #expect(loginRight.state == .notAuthorized)
  }

  @Test("biometryCurrentSet: authorized with the set of its creation, refused without a prompt after a new enrollment")
  func biometryCurrentSet() async throws {
    let environment = try TestEnvironment.ready()
    let bound = right(environment, .biometryCurrentSet)
    try await bound.checkCanAuthorize()
    environment.touch()
    try await bound.authorize(localizedReason: "open the vault")
    #expect(bound.state == .authorized)

    try environment.enroll("left-thumb")
    let check = await thrown { try await bound.checkCanAuthorize() }
    #expect(laCode(check) == .biometryNotEnrolled)
    environment.touch()
    let refused = await thrown { try await bound.authorize(localizedReason: "open the vault") }
    #expect(laCode(refused) == .biometryNotEnrolled)
    #expect(bound.state == .notAuthorized)
    #expect(environment.scripted.pending.count == 1)  // no prompt ran: the finger is still queued

    // Removing the new finger does not restore the old set (the domain state is new), and a plain .biometry
    // right, or a new .biometryCurrentSet right, is unaffected (once the passcode is entered, as after any
    // enrollment change: rule 6).
    try environment.unenroll("left-thumb")
    try environment.unlockWithPasscode()
    let again = await thrown { try await bound.checkCanAuthorize() }
    #expect(laCode(again) == .biometryNotEnrolled)
    try await right(environment, .biometry).authorize(localizedReason: "open the vault")
    environment.touch()
    try await right(environment, .biometryCurrentSet).authorize(localizedReason: "open the vault")
  }

  @Test("checkCanAuthorize: nothing enrolled gives biometryNotEnrolled for biometry, not for the default")
  func checkNothingEnrolled() async throws {
    let environment = TestEnvironment()
    try environment.setPasscode()
    for requirement in [LAAuthenticationRequirement.biometry, .biometryCurrentSet] {
      let error = await thrown { try await right(environment, requirement).checkCanAuthorize() }
      #expect(laCode(error) == .biometryNotEnrolled)
      #expect(error is LAError)
    }
    try await right(environment).checkCanAuthorize()
    try await right(environment, .biometry(fallback: .devicePasscode)).checkCanAuthorize()
    let noPasscode = TestEnvironment()
    let unset = await thrown { try await right(noPasscode).checkCanAuthorize() }
    #expect(laCode(unset) == .passcodeNotSet)
  }

  @Test("biometry(fallback:) with nothing enrolled asks for the passcode, as the default does")
  func fallbackToPasscode() async throws {
    let environment = TestEnvironment()
    try environment.setPasscode()
    for requirement in [LAAuthenticationRequirement.biometry(fallback: .devicePasscode), .biometry(fallback: .default), .default] {
      let passcodeRight = right(environment, requirement)
      environment.prompter.enqueue("1234")
      try await passcodeRight.authorize(localizedReason: "open the notes")
      #expect(passcodeRight.state == .authorized)
    }
    let biometricRight = right(environment, .biometry)
    environment.prompter.enqueue("1234")
    let refused = await thrown { try await biometricRight.authorize(localizedReason: "open the notes") }
    #expect(laCode(refused) == .biometryNotEnrolled)
    #expect(biometricRight.state == .notAuthorized)
  }

  @Test("requirements compare by meaning, describe themselves, and State has Apple's raw values")
  func requirementsAndStates() {
    #expect(LAAuthenticationRequirement.biometry == .biometry)
    #expect(LAAuthenticationRequirement.biometry != .biometryCurrentSet)
    #expect(LAAuthenticationRequirement.biometry(fallback: .devicePasscode) == .biometry(fallback: .devicePasscode))
    #expect(LAAuthenticationRequirement.biometry(fallback: .devicePasscode) != .biometry(fallback: .default))
    #expect("\(LAAuthenticationRequirement.biometry(fallback: .devicePasscode))" == "biometry(fallback: devicePasscode)")
    #expect(LABiometryFallbackRequirement.default != .devicePasscode)
    #expect(LARight.State.allCases.map(\.rawValue) == [0, 1, 2, 3])
  }
}

/// A right a sensor hook can reach.
final class RightBox: @unchecked Sendable {
  var right: LARight?
}

/// The states a hook saw, behind a lock.
final class StateLog: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: [LARight.State] = []
  func append(_ state: LARight.State) { lock.withLock { stored.append(state) } }
  var states: [LARight.State] { lock.withLock { stored } }
}
