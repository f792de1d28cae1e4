import Foundation
import LocalAuthCore
import LocalAuthentication
import Testing

@Suite("BiometricAuthenticationFacade")
struct FacadeTests {
  @Test("enable needs no authentication and persists per user in the core state")
  func enable() async throws {
    let environment = try TestEnvironment.ready()
    let facade = BiometricAuthenticationFacade(configuration: environment.configuration)
    let before = environment.transcript.count
    #expect(facade.isAuthenticationAvailable)
    #expect(!facade.isAuthenticationEnabled(forFeature: "transfer"))
    try await facade.enableAuthentication(forFeature: "transfer")
    #expect(facade.isAuthenticationEnabled(forFeature: "transfer"))
    #expect(try environment.record.features == ["transfer"])
    #expect(environment.transcript.count == before)
    // Another facade (another process) sees the same truth; another user does not.
    #expect(BiometricAuthenticationFacade(configuration: environment.configuration).isAuthenticationEnabled(forFeature: "transfer"))
    try await facade.enableAuthentication(forFeature: "transfer")
    #expect(try environment.record.features == ["transfer"])
  }

  @Test("authenticating for a feature that is not enabled succeeds without a prompt")
  func notEnabled() async throws {
    let environment = try TestEnvironment.ready()
    let facade = BiometricAuthenticationFacade(configuration: environment.configuration)
    let before = environment.transcript.count
    environment.scripted.enqueue(.cancel)
    try await facade.authenticate(forFeature: "settings", reason: "open settings")
    #expect(environment.transcript.count == before)
    #expect(environment.scripted.pending.count == 1)
  }

  @Test("authenticating for an enabled feature needs the owner; failures carry the LAError")
  func enabledNeedsOwner() async throws {
    let environment = try TestEnvironment.ready()
    let facade = BiometricAuthenticationFacade(configuration: environment.configuration)
    try await facade.enableAuthentication(forFeature: "transfer")
    environment.touch()
    try await facade.authenticate(forFeature: "transfer", reason: "send money")
    environment.scripted.enqueue(.cancel)
    await #expect(throws: LAError(.userCancel)) {
      try await facade.authenticate(forFeature: "transfer", reason: "send money")
    }
  }

  @Test("disabling requires a successful owner authentication")
  func disable() async throws {
    let environment = try TestEnvironment.ready()
    let facade = BiometricAuthenticationFacade(configuration: environment.configuration)
    try await facade.enableAuthentication(forFeature: "transfer")
    for _ in 0..<3 { environment.impostor() }
    await #expect(throws: LAError(.authenticationFailed)) {
      try await facade.disableAuthentication(forFeature: "transfer", reason: "stop asking")
    }
    #expect(facade.isAuthenticationEnabled(forFeature: "transfer"))
    environment.touch()
    try await facade.disableAuthentication(forFeature: "transfer", reason: "stop asking")
    #expect(!facade.isAuthenticationEnabled(forFeature: "transfer"))
    #expect(try environment.record.features.isEmpty)
    // Disabling what is not enabled needs nothing.
    environment.scripted.enqueue(.cancel)
    try await facade.disableAuthentication(forFeature: "transfer", reason: "stop asking")
    #expect(environment.scripted.pending.count == 1)
  }

  @Test("availability reports why not, and every call fails with that error")
  func unavailable() async throws {
    let environment = TestEnvironment()
    try environment.setPasscode()
    let facade = BiometricAuthenticationFacade(configuration: environment.configuration)
    #expect(!facade.isAuthenticationAvailable)
    #expect(facade.authenticationUnavailabilityError?.code == LAError.biometryNotEnrolled.rawValue)
    #expect(facade.authenticationUnavailabilityError?.domain == LAErrorDomain)
    await #expect(throws: LAError(.biometryNotEnrolled)) { try await facade.enableAuthentication(forFeature: "transfer") }
    await #expect(throws: LAError(.biometryNotEnrolled)) {
      try await facade.authenticate(forFeature: "transfer", reason: "send money")
    }
    #expect(try environment.record.features.isEmpty)
  }

  @Test("policy 2 facade: the passcode can disable protection")
  func passcodePolicy() async throws {
    let environment = TestEnvironment(modality: nil)
    try environment.setPasscode()
    let facade = BiometricAuthenticationFacade(configuration: environment.configuration, policy: .deviceOwnerAuthentication)
    #expect(facade.isAuthenticationAvailable)
    try await facade.enableAuthentication(forFeature: "vault")
    environment.prompter.enqueue("1234")
    try await facade.disableAuthentication(forFeature: "vault", reason: "unprotect the vault")
    #expect(!facade.isAuthenticationEnabled(forFeature: "vault"))
  }

  @Test("a feature name that cannot be stored is refused")
  func invalidName() async throws {
    let environment = try TestEnvironment.ready()
    let facade = BiometricAuthenticationFacade(configuration: environment.configuration)
    await #expect(throws: BiometricAuthenticationFacade.FacadeError.invalidFeatureName("../x")) {
      try await facade.enableAuthentication(forFeature: "../x")
    }
    #expect(!facade.isAuthenticationEnabled(forFeature: "../x"))
  }

  @Test("a caller that may not write the state gets a failure, never a silent success")
  func deniedState() async throws {
    let environment = TestEnvironment(store: DeniedStateStore())
    let facade = BiometricAuthenticationFacade(configuration: environment.configuration, policy: .deviceOwnerAuthentication)
    #expect(!facade.isAuthenticationAvailable)
    await #expect(throws: LAError(.biometryNotAvailable)) { try await facade.enableAuthentication(forFeature: "vault") }
  }
}
