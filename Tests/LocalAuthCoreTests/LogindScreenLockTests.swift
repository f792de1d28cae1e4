import Testing

@testable import LocalAuthCore

/// Data protection follows the desktop's lock where logind runs (issue 38, item 5; docs/KEYCHAIN.md, "Data
/// protection"): a user is unlocked only while one of their sessions at the machine has LockedHint unset.
@Suite("logind's screen lock for data protection")
struct LogindScreenLockTests {
  typealias Fixture = LogindSessionTests

  /// alice (uid 1000) with sessions 3 (seat0, local) and 7 (as changed by `seven`, default an SSH login).
  func desktop(seven: [String: String?] = ["REMOTE": "1", "SEAT": nil, "VTNR": nil, "REMOTE_HOST": "10.0.0.9"]) -> RemoteSessionTests.FakeSystem {
    let fixture = Fixture()
    var fake = fixture.desktop()
    fixture.session(&fake, "7", seven)
    fixture.userManager(&fake, display: "3")
    return fake
  }

  @Test("the seat session unlocked: not locked; its LockedHint set: locked; an SSH session's hint does not count")
  func seatSessionDecides() {
    let fake = desktop()
    var asked: [String] = []
    #expect(RemoteSession.screenLocked(uid: 1000, fake.system) { asked.append($0); return false } == false)
    #expect(asked == ["3"], "only the session at the machine is asked")
    #expect(RemoteSession.screenLocked(uid: 1000, fake.system) { $0 == "7" ? false : true } == true)
  }

  @Test("two sessions at the machine: unlocked while either is; a hint that cannot be asked counts as locked")
  func anyLocalSessionUnlocks() {
    let fake = desktop(seven: ["SEAT": "seat0", "ACTIVE": "0", "STATE": "online"])
    #expect(RemoteSession.screenLocked(uid: 1000, fake.system) { $0 == "7" ? false : true } == false)
    #expect(RemoteSession.screenLocked(uid: 1000, fake.system) { _ in true } == true)
    #expect(RemoteSession.screenLocked(uid: 1000, fake.system) { _ in nil } == true)
  }

  @Test("no session at the machine, no user file, or a file not root's: locked; another user's session never counts")
  func failsLocked() {
    #expect(RemoteSession.screenLocked(uid: 1001, desktop().system) { _ in false } == true)
    var closing = desktop()
    Fixture().session(&closing, "3", ["STATE": "closing"])
    #expect(RemoteSession.screenLocked(uid: 1000, closing.system) { _ in false } == true)
    var foreign = desktop()
    Fixture().session(&foreign, "3", ["UID": "1001"])
    #expect(RemoteSession.screenLocked(uid: 1000, foreign.system) { _ in false } == true)
    var writable = desktop()
    writable.statuses[RemoteSession.logindSessions + "/3"] = Fixture.roots(0o100666)
    #expect(RemoteSession.screenLocked(uid: 1000, writable.system) { _ in false } == true)
  }

  @Test("without logind nothing reports a lock: nil, and nothing is asked")
  func withoutLogind() {
    var fake = desktop()
    fake.statuses[RemoteSession.systemdRunning] = nil
    var asked = false
    #expect(RemoteSession.screenLocked(uid: 1000, fake.system) { _ in asked = true; return true } == nil)
    #expect(!asked)
  }

  @Test("logind's object path of a session, as sd_bus_path_encode writes it")
  func sessionPath() {
    #expect(LogindBus.sessionPath("3") == "/org/freedesktop/login1/session/_33")
    #expect(LogindBus.sessionPath("c1") == "/org/freedesktop/login1/session/c1")
    #expect(LogindBus.sessionPath("12") == "/org/freedesktop/login1/session/_312")
  }
}
