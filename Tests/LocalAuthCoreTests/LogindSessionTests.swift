import Testing

@testable import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// logind as an authority where it runs (docs/RULES.md, rule 2, "logind"): each rule against fake logind state
/// files as systemd 252 writes them, the user manager judged by the user's display session, files that are not
/// root's, and nothing changed without logind.
@Suite("logind sessions and the user manager")
struct LogindSessionTests {
  typealias FakeSystem = RemoteSessionTests.FakeSystem

  /// A session file's lines as logind writes them for a local, active wayland session of alice on seat0 with VTs.
  static let activeSeatSession: [(String, String)] = [
    ("UID", "1000"), ("USER", "alice"), ("ACTIVE", "1"), ("IS_DISPLAY", "1"), ("STATE", "active"), ("REMOTE", "0"),
    ("TYPE", "wayland"), ("ORIGINAL_TYPE", "wayland"), ("CLASS", "user"), ("SCOPE", "session-3.scope"),
    ("SEAT", "seat0"), ("TTY", "tty2"), ("SERVICE", "gdm-password"), ("VTNR", "2"), ("LEADER", "900"),
    ("AUDIT", "3"),
  ]

  /// A root-owned file or folder with `mode`.
  static func roots(_ mode: UInt32, owner: UInt32 = 0) -> ProcessFacts.FileStatus {
    ProcessFacts.FileStatus(owner: owner, mode: mode, device: 1, inode: 7)
  }

  /// systemd as PID 1 with logind's folders, and process 100 (sudo ← bash ← init, uid 1000) in login session 3,
  /// which the ledger holds as local, placed by its cgroup in logind session 3 (changed by `changes`; nil drops a
  /// key).
  func desktop(_ changes: [String: String?] = [:]) -> FakeSystem {
    var fake = FakeSystem()
    fake.process(100, "sudo", parent: 101, uid: 1000, session: 3)
    fake.process(101, "bash", parent: 1, uid: 1000, session: 3)
    fake.process(1, "systemd", parent: 0)
    fake.ledger = [3: .local]
    fake.statuses[RemoteSession.systemdRunning] = Self.roots(0o040755)
    fake.statuses[RemoteSession.logindSessions] = Self.roots(0o040755)
    fake.statuses[RemoteSession.logindUsers] = Self.roots(0o040755)
    fake.files["/proc/100/cgroup"] = Array("0::/user.slice/user-1000.slice/session-3.scope\n".utf8)
    session(&fake, "3", changes)
    return fake
  }

  /// Writes logind's state file of session `id` (root's, 0644): the active seat session, changed by `changes`.
  func session(_ fake: inout FakeSystem, _ id: String, _ changes: [String: String?] = [:]) {
    var lines = ["# This is private data. Do not parse."]
    for (key, value) in Self.activeSeatSession {
      if let change = changes[key] { if let change { lines.append("\(key)=\(change)") } } else { lines.append("\(key)=\(value)") }
    }
    for (key, value) in changes where !Self.activeSeatSession.contains(where: { $0.0 == key }) {
      if let value { lines.append("\(key)=\(value)") }
    }
    let path = RemoteSession.logindSessions + "/" + id
    fake.files[path] = Array(lines.joined(separator: "\n").utf8)
    fake.statuses[path] = Self.roots(0o100644)
  }

  /// Moves process 100 into alice's user manager (a GNOME Terminal tab's shell), in the systemd-user stack's audit
  /// session 9 (which the ledger does not hold), with logind's user file naming `display` as her display session.
  func userManager(_ fake: inout FakeSystem, display: String?) {
    fake.process(100, "sudo", parent: 101, uid: 1000, session: 9)
    fake.process(101, "bash", parent: 102, uid: 1000, session: 9)
    fake.process(102, "gnome-terminal-", parent: 103, uid: 1000, session: 9)
    fake.process(103, "systemd", parent: 1, uid: 1000, session: 9)
    fake.files["/proc/100/cgroup"] = Array(
      "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-1.scope\n".utf8)
    let path = RemoteSession.logindUsers + "/1000"
    let lines = ["NAME=alice", "STATE=active", "STOPPING=no", "RUNTIME=/run/user/1000", "SESSIONS=3 7"]
      + (display.map { ["DISPLAY=\($0)"] } ?? [])
    fake.files[path] = Array(lines.joined(separator: "\n").utf8)
    fake.statuses[path] = Self.roots(0o100644)
  }

  func detect(_ fake: FakeSystem) -> RemoteSession.Verdict {
    RemoteSession.detect(RemoteSession.Input(processID: 100), system: fake.system)
  }

  @Test("logind: a session on a seat, not remote, of class user or greeter, and active is local")
  func activeSeatIsLocal() {
    #expect(!detect(desktop()).isRemote)
    #expect(!detect(desktop(["CLASS": "greeter"])).isRemote)
    // A seat without VTs (a container's seat0, where logind activates each new session): no VTNR, still local.
    #expect(!detect(desktop(["VTNR": nil, "TTY": nil])).isRemote)
  }

  @Test("logind: no seat, remote, another class, closing or inactive gets the passcode, with one plain reason")
  func sessionRules() {
    let cases: [([String: String?], String)] = [
      (["SEAT": nil, "VTNR": nil], "logind session 3 has no seat"),
      (["REMOTE": "1", "REMOTE_HOST": "192.0.2.10", "SEAT": nil, "VTNR": nil], "logind session 3 is remote (REMOTE=1)"),
      (["REMOTE_HOST": "192.0.2.10"], "logind session 3 has the remote host 192.0.2.10"),
      (["ACTIVE": "0", "STATE": "online"], "logind session 3 is not the active session of seat0"),
      (["CLASS": "background"], "logind session 3 is of class background"),
      (["CLASS": nil], "logind session 3 has no class"),
      (["STATE": "closing"], "logind session 3 is closing (its login has ended)"),
    ]
    for (changes, reason) in cases {
      #expect(detect(desktop(changes)) == RemoteSession.Verdict(isRemote: true, reason: reason))
    }
  }

  @Test("logind: a file or folder of logind's that is not root's alone is not believed")
  func notRoots() {
    var file = desktop()
    file.statuses[RemoteSession.logindSessions + "/3"] = Self.roots(0o100644, owner: 1000)
    #expect(detect(file).reason == "logind's record of session 3 is not root's")
    file.statuses[RemoteSession.logindSessions + "/3"] = Self.roots(0o100664)
    #expect(detect(file).reason == "logind's record of session 3 is not root's")
    file.statuses[RemoteSession.logindSessions + "/3"] = Self.roots(0o120777)
    #expect(detect(file).reason == "logind's record of session 3 is not root's")
    var folder = desktop()
    folder.statuses[RemoteSession.logindSessions] = Self.roots(0o040777)
    #expect(detect(folder).reason == "logind's folder /run/systemd/sessions is not root's")
    var missing = desktop()
    missing.files[RemoteSession.logindSessions + "/3"] = nil
    missing.statuses[RemoteSession.logindSessions + "/3"] = nil
    #expect(detect(missing).reason == "logind has no record of session 3")
    var users = desktop()
    userManager(&users, display: "3")
    users.statuses[RemoteSession.logindUsers + "/1000"] = Self.roots(0o100666)
    #expect(detect(users).reason == "process 100 is in user@1000.service and logind's record of uid 1000 is not root's")
    users.files[RemoteSession.logindUsers + "/1000"] = nil
    users.statuses[RemoteSession.logindUsers + "/1000"] = nil
    #expect(detect(users).reason == "process 100 is in user@1000.service and logind has no record of uid 1000")
  }

  @Test("the user manager: a process of user@UID.service is local while the user's display session is local and active")
  func userManagerLocalDisplay() {
    var fake = desktop()
    userManager(&fake, display: "3")
    #expect(!detect(fake).isRemote)
    // Without logind, the user manager's own audit session decides, as before: the ledger does not hold it.
    fake.statuses[RemoteSession.systemdRunning] = nil
    #expect(detect(fake).reason.hasPrefix("login session 9 was not recorded when it was opened"))
  }

  @Test("the user manager: no display session, a remote, seatless or inactive one, or one the ledger does not call local gets the passcode")
  func userManagerRules() {
    let judged = "process 100 is in user@1000.service, judged by the display session of uid 1000: "
    var none = desktop()
    userManager(&none, display: nil)
    #expect(detect(none) == RemoteSession.Verdict(
      isRemote: true, reason: "process 100 is in user@1000.service and uid 1000 has no display session"))
    let cases: [([String: String?], String)] = [
      (["REMOTE": "1", "REMOTE_HOST": "192.0.2.10", "SEAT": nil, "VTNR": nil], "logind session 3 is remote (REMOTE=1)"),
      (["SEAT": nil, "VTNR": nil], "logind session 3 has no seat"),
      (["ACTIVE": "0", "STATE": "online"], "logind session 3 is not the active session of seat0"),
      (["UID": "1001"], "logind session 3 is not of uid 1000"),
    ]
    for (changes, reason) in cases {
      var fake = desktop(changes)
      userManager(&fake, display: "3")
      #expect(detect(fake).reason == judged + reason)
    }
    // The ledger's word on the display session: recorded remote, or not recorded.
    var recorded = desktop()
    userManager(&recorded, display: "3")
    recorded.ledger = [3: .remote]
    #expect(detect(recorded).reason == judged + "login session 3 was opened remotely (recorded when it was opened)")
    recorded.ledger = [4: .local]
    #expect(detect(recorded).reason.hasPrefix(judged + "login session 3 was not recorded when it was opened"))
    // No ledger: the notice of the missing session line, as for the display session's own processes.
    recorded.ledger = nil
    #expect(detect(recorded).missingLedger)
    // The user manager's own session recorded remote stays remote: each authority can only take away.
    recorded.ledger = [3: .local, 9: .remote]
    #expect(detect(recorded).reason == "login session 9 was opened remotely (recorded when it was opened)")
    // A display session named by a user file but gone from logind's sessions is not believed.
    var gone = desktop()
    userManager(&gone, display: "5")
    #expect(detect(gone).reason == judged + "logind has no record of session 5")
  }

  @Test("the cgroup places a process only by the units right below the user's slice; a user's sub-cgroup forges nothing")
  func placement() {
    func place(_ cgroup: String) -> RemoteSession.LogindPlacement {
      var fake = FakeSystem()
      fake.files["/proc/100/cgroup"] = Array(cgroup.utf8)
      return RemoteSession.logindPlacement(100, fake.system)
    }
    #expect(place("0::/user.slice/user-1000.slice/session-3.scope\n") == .session("3"))
    #expect(place("0::/user.slice/user-0.slice/session-c2.scope/sub\n") == .session("c2"))
    #expect(place("0::/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope\n") == .userManager(1000))
    // What a user may make inside the delegated user manager is still the user manager.
    #expect(place("0::/user.slice/user-1000.slice/user@1000.service/user.slice/user-1000.slice/session-3.scope\n")
      == .userManager(1000))
    #expect(place("0::/user.slice/user-1000.slice/user@1000.service/session-3.scope\n") == .userManager(1000))
    // Another user's manager, a system service, init, a path outside the reader's namespace, nothing.
    #expect(place("0::/user.slice/user-1000.slice/user@1001.service/x\n") == .elsewhere)
    #expect(place("0::/system.slice/cron.service\n") == .elsewhere)
    #expect(place("0::/init.scope\n") == .elsewhere)
    #expect(place("0::/../../user.slice/user-1000.slice/session-3.scope\n") == .elsewhere)
    #expect(place("0::/user.slice/user-1000.slice/session-..%2F3.scope\n") == .elsewhere)
    #expect(place("") == .elsewhere)
    // cgroup v1 (legacy or hybrid): the name=systemd hierarchy, unless the unified one is there.
    #expect(place("12:pids:/user.slice/user-1000.slice/session-9.scope\n1:name=systemd:/user.slice/user-1000.slice/session-3.scope\n")
      == .session("3"))
    #expect(place("1:name=systemd:/user.slice/user-1000.slice/session-4.scope\n0::/user.slice/user-1000.slice/session-3.scope\n")
      == .session("3"))
    // A forged scope name inside the user manager does not borrow session 3's verdict.
    var forged = desktop()
    userManager(&forged, display: nil)
    forged.files["/proc/100/cgroup"] = Array("0::/user.slice/user-1000.slice/user@1000.service/session-3.scope\n".utf8)
    #expect(detect(forged).reason == "process 100 is in user@1000.service and uid 1000 has no display session")
  }

  @Test("without logind nothing changes: the ledger's rules alone, and logind's REMOTE still only adds remoteness")
  func withoutLogind() {
    var fake = desktop(["ACTIVE": "0", "SEAT": nil, "VTNR": nil])
    fake.statuses[RemoteSession.systemdRunning] = nil
    #expect(!detect(fake).isRemote)
    fake = desktop(["REMOTE": "1"])
    fake.statuses[RemoteSession.systemdRunning] = nil
    #expect(detect(fake).reason == "logind session 3 is remote (REMOTE=1)")
    // The ledger still speaks where logind runs: a session it does not hold is not local, whatever logind says.
    var unrecorded = desktop()
    unrecorded.ledger = [4: .local]
    #expect(detect(unrecorded).reason.hasPrefix("login session 3 was not recorded when it was opened"))
  }

  @Test("a session being opened is judged only on what makes it remote: it may not be active or on its seat yet")
  func opening() {
    var system = desktop(["ACTIVE": "0", "SEAT": nil, "VTNR": nil]).system
    system.judgesOpening = true
    #expect(!RemoteSession.detect(RemoteSession.Input(processID: 100), system: system).isRemote)
    system = desktop(["REMOTE": "1"]).system
    system.judgesOpening = true
    #expect(RemoteSession.detect(RemoteSession.Input(processID: 100), system: system).reason
      == "logind session 3 is remote (REMOTE=1)")
  }

  @Test("logind's word is asked at each request: a session switched away from loses the finger at once")
  func notRemembered() {
    let pid = getpid()
    func fake(active: Bool) -> RemoteSession.System {
      let base = desktop(["ACTIVE": active ? "1" : "0"])
      var moved = FakeSystem(files: [:], folders: base.folders, ledger: base.ledger, statuses: base.statuses)
      for (path, bytes) in base.files {
        moved.files[path.replacingOccurrences("/proc/100/", with: "/proc/\(pid)/")] = bytes
      }
      var system = moved.system
      system.remembersProcesses = true
      system.identity = "logind-not-remembered-test"
      return system
    }
    let input = RemoteSession.Input(processID: pid, loginSession: "3")
    #expect(!RemoteSession.detect(input, system: fake(active: true)).isRemote)
    #expect(RemoteSession.detect(input, system: fake(active: false)).reason
      == "logind session 3 is not the active session of seat0")
    #expect(!RemoteSession.detect(input, system: fake(active: true)).isRemote)
  }
}

extension String {
  /// This string with every `target` replaced (no Foundation in this file's imports).
  fileprivate func replacingOccurrences(_ target: String, with replacement: String) -> String {
    var result = ""
    var rest = Substring(self)
    while let range = rest.firstRange(of: target) {
      result += rest[..<range.lowerBound] + replacement
      rest = rest[range.upperBound...]
    }
    return result + rest
  }
}
