import Foundation
import LocalAuthCore
import LocalAuthentication
import Testing

@Suite("invalidate()")
struct InvalidateTests {
  @Test("invalidate() during an evaluation ends it with appCancel")
  func duringEvaluation() async throws {
    let box = ContextBox()
    let environment = TestEnvironment(wrapSensor: { inner in HookSensor(inner) { box.context?.invalidate() } })
    try environment.enroll("right-index")
    try environment.setPasscode()
    try environment.unlockWithPasscode()
    environment.touch()
    let context = environment.context()
    box.context = context
    let (success, error) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(!success)
    #expect(laCode(error) == .appCancel)
    // The genuine touch that arrived after the cancel did not authenticate anyone.
    #expect(try environment.record.lastBiometricSuccess == nil)
  }

  @Test("invalidate() while the sensor waits on an empty queue ends the wait with appCancel")
  func whileWaiting() async throws {
    let box = ContextBox()
    let calls = Flag()
    let environment = TestEnvironment(wrapSensor: { inner in
      HookSensor(inner) {
        if calls.value { box.context?.invalidate() }
        calls.set()
      }
    })
    try environment.enroll("right-index")
    try environment.setPasscode()
    try environment.unlockWithPasscode()
    let context = environment.context()
    box.context = context
    let prompts = environment.prompter.prompts.count
    let start = environment.clock.now()
    let (_, error) = await evaluate(context, .deviceOwnerAuthentication)
    #expect(laCode(error) == .appCancel)
    // Cancelled within the first slices of the 30 s wait, not at its end.
    #expect(environment.clock.now().since(start) < 1)
    #expect(environment.prompter.prompts.count == prompts)
  }

  @Test("after invalidate(): evaluations fail with invalidContext; a second call does nothing")
  func afterwards() async throws {
    let environment = try TestEnvironment.ready()
    let context = environment.context()
    context.invalidate()
    context.invalidate()
    environment.touch()
    let (success, error) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(!success)
    #expect(laCode(error) == .invalidContext)
    #expect(environment.scripted.pending.count == 1)
    await #expect(throws: LAError(.invalidContext)) {
      try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "again")
    }
  }

  @Test("a completed evaluation followed by invalidate(): the next one is invalidContext")
  func afterSuccess() async throws {
    let environment = try TestEnvironment.ready()
    let context = environment.context()
    environment.touch()
    let (first, _) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(first)
    context.invalidate()
    environment.touch()
    let (_, error) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(laCode(error) == .invalidContext)
  }
}
