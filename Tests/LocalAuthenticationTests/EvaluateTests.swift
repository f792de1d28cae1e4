import Dispatch
import Foundation
import LocalAuthCore
import LocalAuthentication
import Testing

@Suite("evaluatePolicy")
struct EvaluateTests {
  @Test("policy 1: a genuine capture succeeds with no error")
  func biometricSuccess() async throws {
    let environment = try TestEnvironment.ready()
    environment.touch()
    let (success, error) = await evaluate(environment.context(), .deviceOwnerAuthenticationWithBiometrics)
    #expect(success)
    #expect(error == nil)
    #expect(environment.scripted.pending.isEmpty)
  }

  @Test("policy 1: three impostor captures end the prompt with authenticationFailed")
  func threeFailures() async throws {
    let environment = try TestEnvironment.ready()
    for _ in 0..<3 { environment.impostor() }
    let (success, error) = await evaluate(environment.context(), .deviceOwnerAuthenticationWithBiometrics)
    #expect(!success)
    #expect(laCode(error) == .authenticationFailed)
    #expect(try environment.record.biometricFailures == 3)
  }

  @Test("policy 1: fallback after a failure gives userFallback; cancel gives userCancel")
  func fallbackAndCancel() async throws {
    let environment = try TestEnvironment.ready()
    environment.impostor()
    environment.scripted.enqueue(.fallback)
    let (_, fallback) = await evaluate(environment.context(), .deviceOwnerAuthenticationWithBiometrics)
    #expect(laCode(fallback) == .userFallback)
    environment.scripted.enqueue(.cancel)
    let (_, cancel) = await evaluate(environment.context(), .deviceOwnerAuthenticationWithBiometrics)
    #expect(laCode(cancel) == .userCancel)
    #expect((cancel as? LAError)?.code == .userCancel)
  }

  @Test("empty localizedFallbackTitle hides the fallback: the press is ignored")
  func hiddenFallback() async throws {
    let environment = try TestEnvironment.ready()
    let context = environment.context()
    context.localizedFallbackTitle = ""
    environment.impostor()
    environment.scripted.enqueue(.fallback)
    environment.touch()
    let (success, error) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(success)
    #expect(error == nil)
  }

  @Test("policy 2: the fallback switches to the passcode, titled by localizedFallbackTitle")
  func policy2Fallback() async throws {
    let environment = try TestEnvironment.ready()
    let context = environment.context()
    context.localizedFallbackTitle = "Use Passcode"
    environment.impostor()
    environment.scripted.enqueue(.fallback)
    environment.prompter.enqueue("1234")
    let (success, error) = await evaluate(context, .deviceOwnerAuthentication)
    #expect(success)
    #expect(error == nil)
    #expect(environment.prompter.prompts.last == "prompt: Use Passcode: ")
  }

  @Test("policy 2 without enrollment goes straight to the passcode; a wrong one fails")
  func policy2PasscodeOnly() async throws {
    let environment = TestEnvironment(modality: nil)
    try environment.setPasscode()
    environment.prompter.enqueue("0000")
    let (success, error) = await evaluate(environment.context(), .deviceOwnerAuthentication)
    #expect(!success)
    #expect(laCode(error) == .authenticationFailed)
    environment.prompter.enqueue("1234")
    let (again, none) = await evaluate(environment.context(), .deviceOwnerAuthentication)
    #expect(again)
    #expect(none == nil)
  }

  @Test("five consecutive failures across contexts lock biometry; the passcode unlocks it")
  func lockoutAcrossContexts() async throws {
    let environment = try TestEnvironment.ready()
    for _ in 0..<3 { environment.impostor() }
    _ = await evaluate(environment.context(), .deviceOwnerAuthenticationWithBiometrics)
    for _ in 0..<2 { environment.impostor() }
    let (_, locked) = await evaluate(environment.context(), .deviceOwnerAuthenticationWithBiometrics)
    #expect(laCode(locked) == .biometryLockout)
    environment.touch()
    let (_, still) = await evaluate(environment.context(), .deviceOwnerAuthenticationWithBiometrics)
    #expect(laCode(still) == .biometryLockout)
    environment.prompter.enqueue("1234")
    let (unlocked, _) = await evaluate(environment.context(), .deviceOwnerAuthentication)
    #expect(unlocked)
    let (success, _) = await evaluate(environment.context(), .deviceOwnerAuthenticationWithBiometrics)
    #expect(success)
  }

  @Test("async form returns true, or throws the LAError")
  func asyncForm() async throws {
    let environment = try TestEnvironment.ready()
    environment.touch()
    #expect(try await environment.context().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "pay"))
    environment.scripted.enqueue(.cancel)
    await #expect(throws: LAError(.userCancel)) {
      try await environment.context().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "pay")
    }
  }

  @Test("empty localizedReason is a programmer error: async throws, reply gets it, nothing is shown")
  func emptyReason() async throws {
    let environment = try TestEnvironment.ready()
    let before = environment.transcript.count
    environment.touch()
    await #expect(throws: LAContext.UsageError.emptyReason) {
      try await environment.context().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "")
    }
    let (success, error) = await evaluate(environment.context(), .deviceOwnerAuthenticationWithBiometrics, reason: "")
    #expect(!success)
    #expect(error as? LAContext.UsageError == .emptyReason)
    #expect(environment.transcript.count == before)
    #expect(environment.scripted.pending.count == 1)
  }

  @Test("the reply comes later, on a background thread; evaluatePolicy does not block")
  func replyIsAsynchronous() async throws {
    let gate = DispatchSemaphore(value: 0)
    let environment = TestEnvironment(wrapSensor: { inner in
      HookSensor(inner) { _ = gate.wait(timeout: .now() + 10) }
    })
    try environment.enroll("right-index")
    try environment.setPasscode()
    try environment.unlockWithPasscode()
    environment.touch()
    let replied = Flag()
    let (success, onMain): (Bool, Bool) = await withCheckedContinuation { continuation in
      environment.context().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "sign") { success, _ in
        replied.set()
        continuation.resume(returning: (success, Thread.isMainThread))
      }
      // evaluatePolicy has returned while the sensor still waits.
      #expect(!replied.value)
      gate.signal()
    }
    #expect(success)
    #expect(!onMain)
  }

  @Test("the reason reaches the prompt; Face ID offers Cancel after two failed attempts")
  func faceID() async throws {
    let environment = try TestEnvironment.ready(modality: .faceID)
    environment.impostor()
    environment.impostor()
    environment.scripted.enqueue(.cancel)
    let (success, error) = await evaluate(environment.context(), .deviceOwnerAuthenticationWithBiometrics, reason: "open the vault")
    #expect(!success)
    #expect(laCode(error) == .userCancel)
    #expect(environment.transcript.contains("info: Look at the camera to open the vault."))
  }
}
