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
    let sentence = PAMEntry.failureSentence(.authenticate, .state(.permissionDenied(path: "/var/lib/localauth")), code: PAM_AUTHINFO_UNAVAIL)
    #expect(sentence.hasPrefix("pam_sm_authenticate cannot read the state at /var/lib/localauth as uid "))
    #expect(sentence.contains("not running as root"))
  }

  @Test("PAM_RHOST: any host is remote, local names included; an unset one leaves the decision to the system")
  func remoteHosts() {
    let nothing = RemoteSession.System(facts: ProcessFacts(read: { _, _ in nil }))
    for host in ["localhost", "localhost.localdomain", "127.0.0.1", "::1", "203.0.113.7"] {
      let verdict = RemoteSession.detect(RemoteSession.Input(remoteHost: host, processID: 100), system: nothing)
      #expect(verdict == RemoteSession.Verdict(isRemote: true, reason: "PAM_RHOST is \(host)"))
    }
    // With nothing readable about the process (not even its login session) it is not known to be local.
    #expect(RemoteSession.detect(RemoteSession.Input(remoteHost: "", processID: 100), system: nothing).isRemote)
    // Root's login session 5 with no ledger is left to the other signals; a user's (or an unknown login uid's)
    // is not local without a ledger.
    let session = RemoteSession.System(
      facts: ProcessFacts(read: { path, _ in
        path == "/proc/100/sessionid" ? Array("5".utf8) : path == "/proc/100/loginuid" ? Array("0".utf8) : nil
      }))
    #expect(!RemoteSession.detect(RemoteSession.Input(remoteHost: "", processID: 100), system: session).isRemote)
    let userSession = RemoteSession.System(
      facts: ProcessFacts(read: { path, _ in path == "/proc/100/sessionid" ? Array("5".utf8) : nil }))
    #expect(RemoteSession.detect(RemoteSession.Input(remoteHost: "", processID: 100), system: userSession).missingLedger)
    let sshd = RemoteSession.System(
      facts: ProcessFacts(read: { path, _ in path == "/proc/100/stat" ? Array("100 (sshd) S 1 100 100 0 -1 4194560 0 0".utf8) : nil }))
    #expect(RemoteSession.detect(RemoteSession.Input(remoteHost: "", processID: 100), system: sshd).isRemote)
  }
}
