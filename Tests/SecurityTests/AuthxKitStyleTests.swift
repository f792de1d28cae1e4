import LocalAuthentication
import Testing

// Only `import LocalAuthentication`, as AuthxKit writes it: NSError, DispatchQueue and DispatchSemaphore come with it
// (it re-exports Foundation, as Apple's does).

/// An AuthxKit-style evaluation: canEvaluatePolicy with an NSError pointer, evaluatePolicy whose reply hops to
/// a dispatch queue, and the error read as an NSError of LAErrorDomain.
@Suite("AuthxKit-style evaluation", .serialized)
struct AuthxKitStyleTests {
  func evaluate(_ context: LAContext) -> (Bool, NSError?)? {
    let done = DispatchSemaphore(value: 0)
    let answer = Answer()
    context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "AuthxKit") { ok, error in
      DispatchQueue.global().async {
        answer.value = (ok, error as NSError?)
        done.signal()
      }
    }
    guard done.wait(timeout: .now() + 60) == .success else { return nil }
    return answer.value
  }

  /// The reply, written on the dispatch queue before the semaphore is signalled and read after the wait.
  final class Answer: @unchecked Sendable { var value: (Bool, NSError?)? }

  @Test("canEvaluatePolicy fills no NSError when a finger is enrolled; a touch succeeds; Cancel is LAErrorDomain -2")
  func evaluation() throws {
    let world = try KeychainWorld.ready()
    let context = LAContext(configuration: world.configuration)
    var error: NSError?
    #expect(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
    #expect(error == nil)
    world.touch()
    let touched = evaluate(context)
    #expect(touched?.0 == true)
    #expect(touched?.1 == nil)
    let cancelled = LAContext(configuration: world.configuration)
    world.cancel()
    let answer = evaluate(cancelled)
    #expect(answer?.0 == false)
    #expect(answer?.1?.domain == LAErrorDomain)
    #expect(answer?.1?.code == LAError.Code.userCancel.rawValue)
  }
}
