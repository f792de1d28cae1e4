import Testing

@testable import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// RemoteSession against fake /proc, logind and utmp files: each source on its own, and the rule that the
/// environment and PAM_RHOST can only add remoteness.
@Suite("Remote session detection")
struct RemoteSessionTests {
  /// A fake system: files by path, and the folders that exist.
  struct FakeSystem {
    var files: [String: [UInt8]] = [:]
    var folders: Set<String> = []
    /// The session ledger's entries; nil when there is no ledger.
    var ledger: [UInt32: SessionLedger.Entry]?
    /// What stat(2) says of a path, where a test sets it; other files and folders are root's folders.
    var statuses: [String: ProcessFacts.FileStatus] = [:]

    /// A process `pid` named `name` whose parent is `parent`, as /proc/PID/stat and status show it, with its real
    /// uid and its audit session (nil: unset, as for a process started outside any login); its login uid is
    /// `loginUID`, by default its uid when in a session (pam_loginuid sets both together) and unset otherwise.
    mutating func process(
      _ pid: Int32, _ name: String, parent: Int32, uid: UInt32 = 0, session: UInt32? = nil, loginUID: UInt32? = nil
    ) {
      files["/proc/\(pid)/loginuid"] = Array("\(loginUID ?? (session == nil ? UInt32.max : uid))".utf8)
      files["/proc/\(pid)/stat"] = Array("\(pid) (\(name)) S \(parent) \(pid) \(pid) 34816 \(pid) 4194560 0 0".utf8)
      files["/proc/\(pid)/status"] = Array("Name:\t\(name)\nUmask:\t0022\nPPid:\t\(parent)\nUid:\t\(uid)\t0\t0\t0\n".utf8)
      files["/proc/\(pid)/sessionid"] = Array("\(session ?? UInt32.max)".utf8)
    }

    /// The chain `names[0]` (pid 100, the PAM application) ← `names[1]` (pid 101) ← … ← init (pid 1).
    mutating func ancestry(_ names: [String]) {
      for (index, name) in names.enumerated() {
        let pid = Int32(100 + index)
        process(pid, name, parent: index == names.count - 1 ? 1 : pid + 1)
      }
      process(1, "systemd", parent: 0)
    }

    /// logind running, with process 100 in session `id` whose state file is `lines`.
    mutating func logind(session id: String, _ lines: [String], cgroup: Bool = true) {
      folders.insert(RemoteSession.logindSessions)
      if cgroup {
        files["/proc/100/cgroup"] = Array("0::/user.slice/user-1000.slice/session-\(id).scope\n".utf8)
      } else {
        files["/proc/100/sessionid"] = Array(id.utf8)
      }
      files[RemoteSession.logindSessions + "/" + id] = Array(
        (["# This is private data. Do not parse.", "UID=1000", "USER=alice", "ACTIVE=1", "STATE=active"] + lines)
          .joined(separator: "\n").utf8)
    }

    /// The utmp file holding `records` (type, line, host), in glibc's own layout.
    mutating func utmp(_ records: [(Int32, String, String)], pid: Int32 = 4242) {
      files[RemoteSession.utmpPath] = records.flatMap {
        RemoteSessionTests.utmpRecord(type: $0.0, line: $0.1, host: $0.2, pid: pid)
      }
    }

    var system: RemoteSession.System {
      let files = self.files
      let folders = self.folders
      let ledger = self.ledger
      let statuses = self.statuses
      let facts = ProcessFacts(
        read: { path, limit in files[path].flatMap { $0.count <= limit ? $0 : nil } },
        status: { path, _ in
          if let status = statuses[path] { return status }
          return folders.contains(path) || files[path] != nil
            ? ProcessFacts.FileStatus(owner: 0, mode: 0o040755, device: 1, inode: 2) : nil
        })
      return RemoteSession.System(
        facts: facts,
        sessionLedger: { session in ledger.map { $0[session].map { .recorded($0) } ?? .unrecorded } ?? .noLedger })
    }
  }

  /// One `struct utmp` as bytes, laid out by glibc's own struct (offsets from MemoryLayout, not from the code).
  static func utmpRecord(type: Int32, line: String, host: String, pid: Int32 = 4242) -> [UInt8] {
    var record = Glibc.utmp()
    record.ut_type = Int16(type)
    record.ut_pid = pid
    withUnsafeMutableBytes(of: &record.ut_line) { buffer in for (i, byte) in line.utf8.prefix(buffer.count).enumerated() { buffer[i] = byte } }
    withUnsafeMutableBytes(of: &record.ut_host) { buffer in for (i, byte) in host.utf8.prefix(buffer.count).enumerated() { buffer[i] = byte } }
    return withUnsafeBytes(of: &record) { Array($0) }
  }

  func detect(_ fake: FakeSystem, rhost: String = "", tty: String = "", env: [String: String] = [:]) -> RemoteSession.Verdict {
    RemoteSession.detect(RemoteSession.Input(remoteHost: rhost, tty: tty, environment: env, processID: 100), system: fake.system)
  }

  /// A local console session: a shell on tty1 under login, no logind, an empty utmp host.
  var local: FakeSystem {
    var fake = FakeSystem()
    fake.ancestry(["sudo", "bash", "login"])
    fake.utmp([(Int32(LOGIN_PROCESS), "tty2", ""), (Int32(USER_PROCESS), "tty1", "")])
    return fake
  }

  @Test("a console session with no remote sign is local, and says what was checked")
  func consoleIsLocal() {
    let verdict = detect(local, tty: "/dev/tty1")
    #expect(!verdict.isRemote)
    #expect(
      verdict.reason == "a login session opened at the machine; no remote host, utmp host, remote logind session, "
        + "network login daemon or SSH variable")
  }

  @Test("any non-empty PAM_RHOST is remote, localhost and loopback addresses included", arguments: [
    "localhost", "localhost.localdomain", "127.0.0.1", "::1", "LOCALHOST", "203.0.113.7", "host.example",
  ])
  func remoteHost(host: String) {
    let verdict = detect(local, rhost: host, tty: "/dev/tty1")
    #expect(verdict == RemoteSession.Verdict(isRemote: true, reason: "PAM_RHOST is \(host)"))
  }

  @Test("an sshd ancestor makes the session remote with an empty environment and no PAM_RHOST (sudo over SSH)",
    arguments: ["sshd", "sshd-session", "in.telnetd", "mosh-server", "dropbear"])
  func daemonAncestor(daemon: String) {
    var fake = FakeSystem()
    fake.ancestry(["sudo", "bash", daemon, "sshd"])
    let verdict = detect(fake, tty: "/dev/pts/0")
    #expect(verdict == RemoteSession.Verdict(isRemote: true, reason: "ancestor process 102 is \(daemon)"))
  }

  @Test("process names are read whole, even with spaces and parentheses; look-alikes are not daemons")
  func processNames() {
    var fake = FakeSystem()
    fake.ancestry(["sudo", "my (sshd) x", "sshd2", "xsshd"])
    #expect(!detect(fake).isRemote)
    #expect(ProcessSnapshot(fake.system.facts).stat(101).map { ($0.name, $0.parent) }! == ("my (sshd) x", 102))
    fake.process(103, "a) S 1 (sshd", parent: 104)
    fake.process(104, "sshd", parent: 1)
    #expect(detect(fake).reason == "ancestor process 104 is sshd")
  }

  @Test("the ancestry walk is bounded: a parent loop or a chain longer than 64 ends it")
  func boundedAncestry() {
    var loop = FakeSystem()
    loop.process(100, "sudo", parent: 101, session: 7)
    loop.process(101, "bash", parent: 100, session: 7)
    #expect(!detect(loop).isRemote)
    var long = FakeSystem()
    long.ancestry(Array(repeating: "bash", count: 70) + ["sshd"])
    long.process(100, "bash", parent: 101, session: 7)
    #expect(!detect(long).isRemote)
    // Outside a login session the walk must reach init through root's processes: a loop never does.
    loop.process(100, "sudo", parent: 101)
    #expect(detect(loop).reason == "process 100 is in no login session (its audit session is unset) and its ancestry is deeper than 64 processes")
    var within = FakeSystem()
    within.ancestry(Array(repeating: "bash", count: 60) + ["sshd"])
    #expect(detect(within).isRemote)
  }

  @Test("the environment cannot make a remote session local: SSH_* unset or empty, PAM_RHOST empty")
  func environmentCannotMakeLocal() {
    var fake = FakeSystem()
    fake.ancestry(["sudo", "bash", "sshd", "sshd"])
    #expect(detect(fake, env: [:]).isRemote)
    #expect(detect(fake, rhost: "", env: ["SSH_CONNECTION": ""]).isRemote)
    var logind = local
    logind.logind(session: "7", ["REMOTE=1", "TYPE=tty"])
    #expect(detect(logind, tty: "/dev/tty1", env: [:]).isRemote)
  }

  @Test("SSH_* variables add remoteness to an otherwise local session", arguments: RemoteSession.variables)
  func variablesAdd(name: String) {
    let verdict = detect(local, tty: "/dev/tty1", env: [name: "192.0.2.10 50000 192.0.2.1 22"])
    #expect(verdict == RemoteSession.Verdict(isRemote: true, reason: "\(name) is set"))
  }

  @Test("logind: REMOTE=1 or a REMOTE_HOST makes the session remote, found by cgroup or audit session")
  func logind() {
    var flagged = local
    flagged.logind(session: "3", ["REMOTE=1", "TYPE=tty", "REMOTE_HOST=192.0.2.10"])
    #expect(detect(flagged).reason == "logind session 3 is remote (REMOTE=1)")
    var host = local
    host.logind(session: "c4", ["REMOTE=0", "TYPE=tty", "REMOTE_HOST=\"localhost\""], cgroup: false)
    #expect(detect(host).reason == "logind session c4 has the remote host localhost")
    var seat = local
    seat.logind(session: "2", ["REMOTE=0", "TYPE=wayland", "SEAT=seat0", "TTY=/dev/tty2"])
    #expect(!detect(seat).isRemote)
  }

  @Test("logind is consulted only while it runs, and only for a well-formed session name")
  func logindGuards() {
    var stopped = local
    stopped.logind(session: "3", ["REMOTE=1"])
    stopped.folders.remove(RemoteSession.logindSessions)
    #expect(!detect(stopped).isRemote)
    var unset = local
    unset.logind(session: "4294967295", ["REMOTE=1"], cgroup: false)
    #expect(!detect(unset).isRemote)
    var traversal = local
    traversal.logind(session: "3", ["REMOTE=1"])
    traversal.files["/proc/100/cgroup"] = Array("0::/user.slice/session-..%2F3.scope\n".utf8)
    #expect(!detect(traversal).isRemote)
    #expect(RemoteSession.isSessionName("c12") && !RemoteSession.isSessionName("../3") && !RemoteSession.isSessionName(""))
  }

  @Test("utmp: the terminal's login record with a host is remote; an X display or another terminal's host is not")
  func utmp() {
    var fake = local
    fake.utmp([
      (Int32(USER_PROCESS), "tty1", ""), (Int32(USER_PROCESS), "pts/0", ":0"),
      (Int32(USER_PROCESS), "pts/3", "192.0.2.10"), (Int32(DEAD_PROCESS), "pts/4", "198.51.100.2"),
      (Int32(USER_PROCESS), "pts/5", "::1"),
    ])
    #expect(detect(fake, tty: "/dev/pts/3").reason == "utmp records the login on pts/3 from 192.0.2.10")
    #expect(detect(fake, tty: "pts/3").isRemote)
    #expect(detect(fake, tty: "/dev/pts/5").reason == "utmp records the login on pts/5 from ::1")
    #expect(!detect(fake, tty: "/dev/pts/0").isRemote)
    #expect(!detect(fake, tty: "/dev/pts/4").isRemote)
    #expect(!detect(fake, tty: "/dev/tty1").isRemote)
    #expect(!detect(fake, tty: "").isRemote)
  }

  @Test("utmp host names: X displays are local, IPv6 and other hosts are not")
  func displayNames() {
    #expect(RemoteSession.isLocalDisplay(":0") && RemoteSession.isLocalDisplay(":1.0"))
    for host in ["::1", "::ffff:192.0.2.1", "localhost:10.0", ":", ":0.", ":0.0.0", ":pts/1:S.0"] {
      #expect(!RemoteSession.isLocalDisplay(host), "\(host)")
    }
  }

  @Test("utmp records are read in glibc's layout; a trailing partial record is ignored")
  func utmpLayout() {
    let bytes = Self.utmpRecord(type: Int32(USER_PROCESS), line: String(repeating: "x", count: 32), host: "h")
    let records = RemoteSession.UtmpRecord.records(in: bytes + bytes.prefix(10))
    #expect(records.count == 1)
    #expect(records.first?.type == Int16(USER_PROCESS))
    #expect(records.first?.line == String(repeating: "x", count: 32))
    #expect(records.first?.host == "h")
  }

  @Test("the live system: this test process is found and walked")
  func liveSystem() {
    let live = RemoteSession.System.live(runtimeRoot: "/nonexistent")
    #expect(ProcessSnapshot(live.facts).stat(getpid())?.parent == getppid())
    let verdict = RemoteSession.detect(RemoteSession.Input(remoteHost: "192.0.2.1", processID: getpid()), system: live)
    #expect(verdict.isRemote)
  }
}
