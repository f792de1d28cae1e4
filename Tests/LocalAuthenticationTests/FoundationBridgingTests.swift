import LocalAuthentication
import Testing

// This file imports LocalAuthentication only: NSError, Data and DispatchQueue come with it, as with Apple's.

/// A wrapper's canEvaluate, written against Apple's NSErrorPointer.
private func canEvaluate(_ context: LAContext, error: NSErrorPointer) -> Bool {
  context.canEvaluatePolicy(.deviceOwnerAuthentication, error: error)
}

@Suite("What Apple's LocalAuthentication brings: Foundation, NSErrorPointer, LAError(_nsError:), hashable contexts")
struct FoundationBridgingTests {
  @Test("import LocalAuthentication brings Foundation and Dispatch")
  func reexports() {
    let error = NSError(domain: LAErrorDomain, code: -2, userInfo: nil)
    #expect(error.code == -2)
    #expect(Data("x".utf8).count == 1)
    let queue = DispatchQueue(label: "la.reexport")
    #expect(queue.sync { 7 } == 7)
  }

  @Test("an NSErrorPointer parameter passes &error through to canEvaluatePolicy")
  func errorPointer() {
    var error: NSError?
    let context = LAContext()
    let result = canEvaluate(context, error: &error)
    #expect(result == (error == nil))
    #expect(canEvaluate(context, error: nil) == result)
  }

  @Test("LAError(_nsError:) reads the code and keeps the user info; _nsError goes back")
  func fromNSError() {
    let ns = NSError(domain: LAErrorDomain, code: LAError.Code.biometryLockout.rawValue, userInfo: [NSDebugDescriptionErrorKey: "five"])
    let error = LAError(_nsError: ns)
    #expect(error.code == .biometryLockout)
    #expect(error.errorUserInfo[NSDebugDescriptionErrorKey] as? String == "five")
    #expect(error._nsError.domain == LAErrorDomain && error._nsError.code == -8)
    #expect(LAError(_nsError: NSError(domain: LAErrorDomain, code: -9999)).code == .authenticationFailed)
  }

  @Test("contexts are hashable by identity, as NSObjects are: a [String: AnyHashable] keeps them")
  func hashableContexts() {
    let first = LAContext()
    let second = LAContext()
    #expect(first == first && first != second)
    let options: [String: AnyHashable] = ["context": first]
    #expect(options["context"] == AnyHashable(first))
    #expect(options["context"] as? LAContext === first)
    #expect(Set([first, second, first]).count == 2)
  }
}
