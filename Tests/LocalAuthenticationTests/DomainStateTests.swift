import Foundation
import LocalAuthCore
import LocalAuthentication
import Testing

@Suite("evaluatedPolicyDomainState and domainState")
struct DomainStateTests {
  /// The domain state a fresh context reports after canEvaluatePolicy for biometrics.
  func state(_ environment: TestEnvironment) -> Data? {
    let context = environment.context()
    context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
    return context.evaluatedPolicyDomainState
  }

  @Test("nil before any evaluation; set by a successful biometric canEvaluatePolicy")
  func setByCanEvaluate() throws {
    let environment = try TestEnvironment.ready()
    let context = environment.context()
    #expect(context.evaluatedPolicyDomainState == nil)
    context.canEvaluatePolicy(.deviceOwnerAuthentication, error: nil)
    #expect(context.evaluatedPolicyDomainState == nil)
    context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
    #expect(context.evaluatedPolicyDomainState?.count == 32)
  }

  @Test("identical while nothing changes; new on add, on remove, and after add-then-remove")
  func changesWithEnrollment() throws {
    let environment = try TestEnvironment.ready()
    let original = try #require(state(environment))
    #expect(state(environment) == original)
    try environment.enroll("left-thumb")
    let added = try #require(state(environment))
    #expect(added != original)
    try environment.unenroll("left-thumb")
    let removed = try #require(state(environment))
    #expect(removed != original)
    #expect(removed != added)
  }

  @Test("nil when nothing is enrolled (canEvaluate fails, and domainState has no hash)")
  func nothingEnrolled() throws {
    let environment = TestEnvironment()
    try environment.setPasscode()
    #expect(state(environment) == nil)
    let domain = environment.context().domainState
    #expect(domain.biometry.stateHash == nil)
    #expect(domain.stateHash == nil)
    #expect(domain.biometry.biometryType == .touchID)
  }

  @Test("domainState.biometry.stateHash is live and equals the evaluated state")
  func liveDomainState() throws {
    let environment = try TestEnvironment.ready()
    let context = environment.context()
    let before = try #require(context.domainState.biometry.stateHash)
    #expect(before == state(environment))
    #expect(context.domainState.stateHash == before)
    try environment.enroll("left-thumb")
    #expect(context.domainState.biometry.stateHash != before)
  }

  @Test("a biometric evaluation sets it; a passcode-only success does not")
  func setByEvaluation() async throws {
    let environment = try TestEnvironment.ready()
    let biometric = environment.context()
    environment.touch()
    let (success, _) = await evaluate(biometric, .deviceOwnerAuthentication)
    #expect(success)
    #expect(biometric.evaluatedPolicyDomainState == state(environment))
    #expect(biometric.evaluatedPolicyDomainState != nil)

    // No sensor: the passcode authenticates, and the enrolled state is not captured.
    let passcodeOnly = TestEnvironment(modality: nil)
    try passcodeOnly.enroll("right-index")
    try passcodeOnly.setPasscode()
    passcodeOnly.prompter.enqueue("1234")
    let context = passcodeOnly.context()
    let (ok, _) = await evaluate(context, .deviceOwnerAuthentication)
    #expect(ok)
    #expect(try passcodeOnly.record.domainState != nil)
    #expect(context.evaluatedPolicyDomainState == nil)
  }
}
