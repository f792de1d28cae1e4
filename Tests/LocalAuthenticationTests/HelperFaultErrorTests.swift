import Foundation
import LocalAuthCore
@testable import LocalAuthentication
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What an app is told when localauth-helper could not serve it (`LAContext.helperError`): the code, and a debug
/// description that names the cause the helper found.
@Suite("Helper faults as an app sees them")
struct HelperFaultErrorTests {
  /// A context of a process that is not root's, without a running helper: enough to map a reply.
  static func context() -> LAContext { LAContext(setup: .failure(LAContextConfiguration.SetupError.throughHelper)) }

  @Test("a uid without a passwd entry: biometryNotAvailable, with that cause and the uid, not the setuid question")
  func unknownUser() {
    let error = Self.context().helperError(AppReply.fault(.unknownUser), recorder: nil)
    #expect(error.code == .biometryNotAvailable)
    let expected = "uid \(getuid()) has no passwd entry, so localauth-helper cannot serve it: the helper authenticates "
      + "only the user who runs it, by name"
    #expect(error.nsError.userInfo[NSDebugDescriptionErrorKey] as? String == expected)
    #expect(error.nsError.domain == LAErrorDomain && error.nsError.code == -6)
    #expect(LAContext.sentence(of: .unknownUser) == expected, "a keychain call's failure says the same")
    #expect(!expected.contains("setuid"))
  }

  @Test("the other faults keep the helper's clause: an unreadable state still asks about the setuid bit")
  func otherFaults() {
    let context = Self.context()
    // A failed conversation is the app's own side's failure (systemCancel, or what its prompter recorded).
    for fault in HelperFault.allCases where ![.unknownUser, .conversationFailed, .conversationAgain].contains(fault) {
      let error = context.helperError(AppReply.fault(fault), recorder: nil)
      #expect(error.code == (fault == .protocolViolation ? .systemCancel : .biometryNotAvailable), "\(fault)")
      #expect(error.nsError.userInfo[NSDebugDescriptionErrorKey] as? String == "localauth-helper \(fault.description)")
    }
    #expect(LAContext.sentence(of: .stateUnreadable).contains("setuid root"))
  }
}
