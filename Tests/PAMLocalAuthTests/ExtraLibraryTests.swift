import CPAM
import LocalAuthCore
import Testing

@testable import PAMLocalAuth

/// Which operations the installed module hands to pam_localauth/extra.so, and their numbers on its entry point.
@Suite("The module's library of rarely used parts")
struct ExtraLibraryTests {
  @Test("every operation has one number, from 1, and each number names it back; 0, 7 and -1 name none")
  func operationNumbers() {
    // The numbers are an ABI between a module and its library: pinned, one by one.
    let pinned: [(PAMEntry.Operation, CInt)] = [
      (.authenticate, 1), (.setCredentials, 2), (.accountManagement, 3), (.changeAuthToken, 4), (.openSession, 5),
      (.closeSession, 6),
    ]
    #expect(pinned.count == PAMEntry.Operation.allCases.count)
    for (operation, code) in pinned {
      #expect(operation.code == code, "\(operation)")
      #expect(PAMEntry.Operation(code: code) == operation, "\(operation)")
    }
    for code: CInt in [0, 7, -1] { #expect(PAMEntry.Operation(code: code) == nil) }
  }

  @Test("the passcode change, the keychain lines and fprintd go to the library; the rest stays in the module")
  func handedOver() throws {
    let plain = Options()
    #expect(ExtraLibrary.runs(.changeAuthToken, plain))
    #expect(!ExtraLibrary.runs(.authenticate, plain))  // these tests run as root
    for operation in [PAMEntry.Operation.setCredentials, .accountManagement, .openSession, .closeSession] {
      #expect(!ExtraLibrary.runs(operation, plain), "\(operation)")
    }
    for argument in ["capture_authtok", "release_authtok", "sensor=fprintd"] {
      let options = try OptionParser.parse(arguments: [argument], readFile: { _ in nil }).options
      #expect(ExtraLibrary.runs(.authenticate, options), "\(argument)")
      #expect(!ExtraLibrary.runs(.openSession, options), "\(argument)")
    }
  }

  @Test("a NULL handle or an unknown operation number is refused by the library's entry point")
  func entryRefuses() {
    #expect(pam_localauth_extra_v1(1, nil, 0, 0, nil) == PAM_SERVICE_ERR)
    #expect(pam_localauth_extra_v1(99, nil, 0, 0, nil) == PAM_SERVICE_ERR)
  }
}
