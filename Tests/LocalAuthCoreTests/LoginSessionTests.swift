import Foundation
import LocalAuthTestSupport
import Testing

@testable import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// The login session as the anchor of the remote detection (docs/RULES.md, rule 2, "The login session"):
/// a fake /proc and ledger for each rule, and the real ledger file in a temporary folder.
@Suite("Login session anchor")
struct LoginSessionTests {
  typealias FakeSystem = RemoteSessionTests.FakeSystem

  func detect(_ fake: FakeSystem, tty: String = "") -> RemoteSession.Verdict {
    RemoteSession.detect(RemoteSession.Input(tty: tty, processID: 100), system: fake.system)
  }

  /// sudo (real uid 1000) ← bash ← script ← init: what `setsid -f script -qfc "sudo -k id"` leaves after the SSH
  /// connection that started it is gone; every process still carries the SSH login's session 12.
  func detached(session: UInt32? = 12, uid: UInt32 = 1000) -> FakeSystem {
    var fake = FakeSystem()
    fake.process(100, "sudo", parent: 101, uid: uid, session: session)
    fake.process(101, "bash", parent: 102, uid: uid, session: session)
    fake.process(102, "script", parent: 1, uid: uid, session: session)
    fake.process(1, "systemd", parent: 0)
    return fake
  }

  @Test("a session the ledger recorded remote stays remote after sshd is gone (setsid + script, tmux, nohup)")
  func ledgerRemote() {
    var fake = detached()
    fake.ledger = [12: .remote, 13: .local]
    #expect(detect(fake) == RemoteSession.Verdict(
      isRemote: true, reason: "login session 12 was opened remotely (recorded when it was opened)"))
  }

  @Test("a session the ledger recorded local is local; the same processes in another session are not")
  func ledgerLocal() {
    var fake = detached()
    fake.ledger = [12: .local]
    #expect(!detect(fake).isRemote)
    fake.ledger = [11: .local]
    let verdict = detect(fake)
    #expect(verdict.isRemote)
    #expect(verdict.reason.hasPrefix("login session 12 was not recorded when it was opened"), "\(verdict.reason)")
  }

  @Test("a recorded local session is still remote when the ancestry, utmp or the variables say so")
  func localRecordAddsNothing() {
    var fake = detached()
    fake.ledger = [12: .local]
    fake.process(102, "sshd", parent: 1, uid: 0, session: 12)
    #expect(detect(fake).reason == "ancestor process 102 is sshd")
  }

  @Test("without a ledger, a utmp login from a remote host whose sshd is in the session makes it remote")
  func utmpLoginInSession() {
    var fake = detached()
    fake.process(500, "sshd", parent: 1, uid: 1000, session: 12)
    fake.utmp([(Int32(USER_PROCESS), "pts/4", "192.0.2.10")], pid: 500)
    #expect(detect(fake).reason == "utmp records a login from 192.0.2.10 in login session 12 (pid 500)")
    // Another session's login, an X display or a dead record is no sign.
    // (Without a ledger a user's session is not local anyway: the same checks in root's login session.)
    fake = detached(uid: 0)
    fake.process(500, "sshd", parent: 1, uid: 1000, session: 99)
    fake.utmp([(Int32(USER_PROCESS), "pts/4", "192.0.2.10")], pid: 500)
    #expect(!detect(fake).isRemote)
    fake.process(500, "sshd", parent: 1, uid: 1000, session: 12)
    fake.utmp([(Int32(USER_PROCESS), "pts/4", ":0"), (Int32(DEAD_PROCESS), "pts/5", "192.0.2.10")], pid: 500)
    #expect(!detect(fake).isRemote)
    // With a ledger, the ledger decides: a recorded local session is not searched.
    fake.utmp([(Int32(USER_PROCESS), "pts/4", "192.0.2.10")], pid: 500)
    fake.ledger = [12: .local]
    #expect(!detect(fake).isRemote)
  }

  @Test("no ledger, no finger: a user's login session (its SSH connection gone) is not local; root's and none keep the finger")
  func noLedgerUserSession() {
    // What `tmux -L x new-session -d "su U -c true"` leaves after the SSH login that started it has ended.
    let verdict = detect(detached())
    #expect(verdict.isRemote)
    #expect(verdict.missingLedger)
    #expect(verdict.reason == RemoteSession.missingLedger
      + " cannot tell whether login session 12 of uid 1000 was opened at the machine")
    #expect(verdict.reason.contains("session optional pam_localauth.so"))
    // An unreadable login uid is not root's either.
    var unreadable = detached()
    unreadable.files["/proc/100/loginuid"] = nil
    #expect(detect(unreadable).reason.hasSuffix("login session 12 of an unreadable login uid was opened at the machine"))
    // Root's login session (a root console) and no session (login under getty) keep the other rules.
    #expect(!detect(detached(uid: 0)).isRemote)
    var login = FakeSystem()
    login.process(100, "login", parent: 101)
    login.process(101, "agetty", parent: 1)
    login.process(1, "systemd", parent: 0)
    #expect(!detect(login, tty: "tty1").isRemote)
    // The session being opened (recordOpening) is judged by the other signals: the missing ledger is not one.
    var opening = detached().system
    opening.judgesOpening = true
    #expect(!RemoteSession.detect(RemoteSession.Input(processID: 100), system: opening).isRemote)
    // With a ledger, a recorded local user session is local.
    var recorded = detached()
    recorded.ledger = [12: .local]
    #expect(!detect(recorded).isRemote)
  }

  @Test("the ledger is raised only where pam_loginuid started the session: root's login daemon, not a reparented su")
  func openedSessionOnlyByLoginDaemon() {
    var fake = FakeSystem()
    // sshd's session process (root) in the new session 12, its listener in none.
    fake.process(300, "sshd-session", parent: 301, uid: 0, session: 12)
    fake.process(301, "sshd", parent: 1, uid: 0)
    #expect(SessionLedger.openedSession(processID: 300, parentID: 301, realUID: 0, fake.system) == 12)
    // su (setuid: its real uid is the caller's) in a cron job's session 40, whose parent has exited: init is its
    // parent now, in no session. It opens no session.
    fake.process(400, "su", parent: 1, uid: 1000, session: 40)
    fake.process(1, "systemd", parent: 0)
    #expect(SessionLedger.openedSession(processID: 400, parentID: 1, realUID: 1000, fake.system) == nil)
    // Nor does a process in its parent's session, or in none.
    fake.process(401, "su", parent: 402, uid: 1000, session: 40)
    fake.process(402, "bash", parent: 1, uid: 1000, session: 40)
    #expect(SessionLedger.openedSession(processID: 401, parentID: 402, realUID: 0, fake.system) == nil)
    #expect(SessionLedger.openedSession(processID: 301, parentID: 1, realUID: 0, fake.system) == nil)
  }

  @Test("no login session: local only when the process and every ancestor up to init run as root")
  func noSession() {
    let user = detect(detached(session: nil))
    #expect(user == RemoteSession.Verdict(
      isRemote: true, reason: "process 100 is in no login session (its audit session is unset) and it runs as uid 1000"))
    // login(1) under getty, or a display manager, before its session exists.
    var login = FakeSystem()
    login.process(100, "login", parent: 101)
    login.process(101, "agetty", parent: 1)
    login.process(1, "systemd", parent: 0)
    #expect(!detect(login, tty: "tty1").isRemote)
    // A root process under a user's service manager (systemd-run --user, then a setuid program) is not.
    login.process(101, "systemd", parent: 1, uid: 1000)
    #expect(detect(login).reason == "process 100 is in no login session (its audit session is unset) and its ancestor process 101 runs as uid 1000")
    // An ancestry that cannot be read (the parent exited meanwhile) is not local either.
    login.files["/proc/101/status"] = nil
    #expect(detect(login).reason == "process 100 is in no login session (its audit session is unset) and the ancestry of process 101 cannot be read")
  }

  @Test("the ledger file: raised only, remote never lowered, another boot's ledger ignored, checked like the state")
  func ledgerFile() throws {
    let folder = TemporaryFolder("session")
    let ledger = SessionLedger(root: folder.path + "/run", bootID: "boot-a")
    #expect(ledger.lookUp(5) == .noLedger)
    try ledger.record(5, as: .local)
    #expect(ledger.lookUp(5) == .recorded(.local))
    #expect(ledger.lookUp(6) == .unrecorded)
    #expect(ledger.lookUp(4_000_000) == .unrecorded)
    try ledger.record(5, as: .remote)
    try ledger.record(5, as: .local)
    #expect(ledger.lookUp(5) == .recorded(.remote))
    try ledger.record(4_000_000, as: .remote)
    #expect(ledger.lookUp(4_000_000) == .recorded(.remote))
    var status = stat()
    #expect(lstat(ledger.path, &status) == 0 && status.st_mode & 0o777 == 0o600 && status.st_uid == 0)
    // The next boot starts again: its sessions are new.
    let next = SessionLedger(root: folder.path + "/run", bootID: "boot-b")
    #expect(next.lookUp(5) == .noLedger)
    try next.record(7, as: .local)
    #expect(next.lookUp(5) == .unrecorded)
    #expect(ledger.lookUp(5) == .noLedger)
    // A ledger others may write is no ledger.
    chmod(ledger.path, 0o666)
    #expect(next.lookUp(7) == .noLedger)
    chmod(ledger.path, 0o600)
    #expect(next.lookUp(7) == .recorded(.local))
    #expect(next.lookUp(SessionLedger.maximumSession + 1) == .noLedger)
  }

  @Test("the reuse scope names the login session, the terminal session's leader and start, and the terminal")
  func reuseScope() {
    let origin = RequestOrigin.current(service: "sudo", tty: "/dev/pts/2")
    let leader = getsid(0)
    let start = FileSyscalls.processStartTime(leader)
    #expect(start != nil)
    let session = (try? String(contentsOfFile: "/proc/self/sessionid", encoding: .utf8)) ?? ""
    let expected = session == "4294967295" ? "-" : session
    #expect(origin.reuseScope == "session=\(expected),leader=\(leader)@\(start ?? 0),tty=/dev/pts/2")
    var recycled = origin
    recycled.sessionLeader = "\(leader)@\((start ?? 0) + 1)"
    #expect(recycled.reuseScope != origin.reuseScope)
    var unreadable = origin
    unreadable.reuseAllowed = false
    #expect(unreadable.reuseScope == "")
  }
}
