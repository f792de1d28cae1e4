import Foundation
import LocalAuthentication
import Testing

@Suite("LAError bridging to NSError")
struct NSErrorBridgingTests {
  @Test("an LAError bridges to NSError with domain, code and description")
  func toNSError() {
    let error: any Error = LAError(.userCancel)
    let ns = error as NSError
    #expect(ns.domain == "com.apple.LocalAuthentication")
    #expect(ns.code == -2)
    #expect(ns.localizedDescription == "Authentication was canceled by the user.")
    #expect(error._code == -2)
    #expect(error._domain == LAErrorDomain)
    #expect(error.localizedDescription == "Authentication was canceled by the user.")
  }

  @Test("nsError carries the same fields, and extra user info survives")
  func explicitNSError() {
    let error = LAError(.biometryLockout, userInfo: [NSDebugDescriptionErrorKey: "five failures"])
    #expect(error.nsError.code == -8)
    #expect(error.nsError.domain == LAErrorDomain)
    #expect(error.nsError.userInfo[NSDebugDescriptionErrorKey] as? String == "five failures")
    #expect(error.errorUserInfo[NSLocalizedDescriptionKey] as? String == "Biometry is locked out; the passcode is required.")
  }

  @Test("an NSError in LAErrorDomain reads back as LAError; other domains do not")
  func fromNSError() {
    let ns = NSError(domain: LAErrorDomain, code: -7, userInfo: nil)
    #expect(LAError(bridging: ns)?.code == .biometryNotEnrolled)
    #expect((ns as any Error)._code == -7)
    #expect(LAError(bridging: NSError(domain: "other", code: -7)) == nil)
    #expect(LAError(bridging: NSError(domain: LAErrorDomain, code: 12345)) == nil)
    // The Linux runtime cannot cast an NSError to the struct (Apple can): hence LAError(bridging:).
    #expect((ns as any Error) as? LAError == nil)
  }

  @Test("catch LAError.userCancel matches by code")
  func catchPattern() {
    func fail() throws { throw LAError(.userCancel) }
    var caught = false
    do { try fail() } catch LAError.userCancel { caught = true } catch { Issue.record("wrong branch: \(error)") }
    #expect(caught)
    #expect(!(LAError.Code.appCancel ~= LAError(.userCancel)))
    #expect(LAError.Code.appCancel ~= NSError(domain: LAErrorDomain, code: -9))
  }

  @Test("errors compare by code")
  func equality() {
    #expect(LAError(.appCancel) == LAError(.appCancel, userInfo: ["x": 1]))
    #expect(LAError(.appCancel) != LAError(.userCancel))
  }
}
