import CPAM
import LocalAuthCore
import Testing

@testable import PAMLocalAuth

#if canImport(Glibc)
import Glibc
#endif

/// argv decoding at the entry point: counts and lengths are capped, NULL entries refused.
@Suite("Module argument decoding")
struct ArgumentDecodingTests {
  /// Calls PAMHandle.arguments with a C argv built from `strings` (nil entries become NULL).
  func decode(_ strings: [String?], argc: Int? = nil) -> [String]? {
    let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
    defer { pointers.forEach { free($0) } }
    var argv: [UnsafePointer<CChar>?] = pointers.map { $0.map { UnsafePointer($0) } }
    return argv.withUnsafeMutableBufferPointer { buffer in
      PAMHandle.arguments(CInt(argc ?? strings.count), buffer.baseAddress)
    }
  }

  @Test("plain arguments decode in order")
  func plain() {
    #expect(decode(["policy=deviceOwnerAuthentication", "debug", "reason=unlock the vault"])
      == ["policy=deviceOwnerAuthentication", "debug", "reason=unlock the vault"])
  }

  @Test("no arguments")
  func empty() {
    #expect(PAMHandle.arguments(0, nil) == [])
  }

  @Test("a NULL argv with a count, or a NULL entry, is refused")
  func nulls() {
    #expect(PAMHandle.arguments(2, nil) == nil)
    #expect(decode(["debug", nil]) == nil)
  }

  @Test("an argument longer than the cap is refused")
  func tooLong() {
    #expect(decode([String(repeating: "a", count: OptionParser.maximumEntryLength)])?.count == 1)
    #expect(decode([String(repeating: "a", count: OptionParser.maximumEntryLength + 1)]) == nil)
  }

  @Test("more arguments than the cap are refused")
  func tooMany() {
    #expect(decode(Array(repeating: "debug", count: OptionParser.maximumEntries))?.count == OptionParser.maximumEntries)
    #expect(decode(Array(repeating: "debug", count: OptionParser.maximumEntries + 1)) == nil)
  }

  @Test("the not-root log sentence says why")
  func notRootSentence() {
    let sentence = PAMEntry.failureSentence(.authenticate, StateError.permissionDenied(path: "/var/lib/localauth"), code: PAM_AUTHINFO_UNAVAIL)
    #expect(sentence.hasPrefix("pam_sm_authenticate cannot read the state at /var/lib/localauth as uid "))
    #expect(sentence.contains("not running as root"))
  }

  @Test("local host names are not remote")
  func localHosts() {
    #expect(Authenticate.localHosts.isSuperset(of: ["localhost", "127.0.0.1", "::1"]))
  }
}
