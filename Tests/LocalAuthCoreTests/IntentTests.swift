@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// docs/RULES.md, "Intent": a finger approves only what its owner is looking at, and the prompt says what.
/// The /proc files are fakes: `FakeProc` writes the few lines the check reads.
@Suite("Intent: visible requests and the approved command")
struct IntentTests {
  /// A fake /proc: stat, status and cmdline files per pid.
  struct FakeProc {
    var files: [String: [UInt8]] = [:]
    /// Symbolic links (/proc/PID/exe, /proc/PID/fd/N) and folders (/proc/PID/fd) by path.
    var links: [String: String] = [:]
    var folders: [String: [String]] = [:]
    /// Owner and mode of executables by path.
    var owners: [String: (uid: UInt32, mode: UInt32)] = [:]
    /// The peer process of a Unix socket, by "PID/FD" (SO_PEERCRED).
    var peers: [String: Int32] = [:]
    /// Process memory by "PID@ADDRESS" (/proc/PID/mem).
    var memory: [String: [UInt8]] = [:]

    /// `pid` holds a Unix socket as descriptor `fd` connected to process `peer`.
    mutating func connect(_ pid: Int32, fd: Int, to peer: Int32) {
      folders["/proc/\(pid)/fd", default: []].append("\(fd)")
      links["/proc/\(pid)/fd/\(fd)"] = "socket:[\(9000 + fd)]"
      peers["\(pid)/\(fd)"] = peer
    }

    /// A process: its stat line (name, parent, group, terminal device, the terminal's foreground group), its
    /// real uid and its command line.
    mutating func add(
      _ pid: Int32, _ name: String, parent: Int32, group: Int32, tty: Int32, foreground: Int32, uid: UInt32 = 1000,
      cmdline: [String] = []
    ) {
      let session = group
      files["/proc/\(pid)/stat"] = Array(
        "\(pid) (\(name)) S \(parent) \(group) \(session) \(tty) \(foreground) 4194560 0 0 0 0 0 0\n".utf8)
      files["/proc/\(pid)/status"] = Array("Name:\t\(name)\nUid:\t\(uid)\t0\t0\t0\nTracerPid:\t0\n".utf8)
      if folders["/proc/\(pid)/fd"] == nil { folders["/proc/\(pid)/fd"] = [] }
      files["/proc/\(pid)/cmdline"] = cmdline.flatMap { Array($0.utf8) + [0] }
    }

    /// `pid` runs the executable `path` (owned by `owner`, with mode `mode`).
    mutating func exe(_ pid: Int32, _ path: String, owner: UInt32 = 0, mode: UInt32 = 0o755) {
      links["/proc/\(pid)/exe"] = path
      owners[path] = (owner, mode)
      files["/proc/\(pid)/maps"] = Array(
        ("00400000-00500000 r-xp 00000000 00:01 \(Self.inode(path))    \(path)\n"
          + "7f000000-7f100000 r-xp 00000000 00:01 \(Self.inode(Self.libc))    \(Self.libc)\n").utf8)
    }

    /// The C library every fake program maps.
    static let libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"

    /// `pid` also maps `path` executable (a library it was started with, or code written at run time: "").
    mutating func map(_ pid: Int32, _ path: String, owner: UInt32 = 0, mode: UInt32 = 0o644) {
      let inode = path.isEmpty ? 0 : Self.inode(path)
      files["/proc/\(pid)/maps", default: []] += Array("7e000000-7e100000 r-xp 00000000 00:0\(inode == 0 ? 0 : 1) \(inode)    \(path)\n".utf8)
      if !path.isEmpty { owners[path] = (owner, mode) }
    }

    /// A stable inode number for a fake file.
    static func inode(_ path: String) -> UInt64 { UInt64(path.utf8.reduce(7) { ($0 &* 31 &+ Int($1)) & 0xFFFFFF }) + 100 }

    /// `pid` holds the master of pts/`index` as descriptor `fd`.
    mutating func holdMaster(_ pid: Int32, _ index: Int, fd: Int = 5) {
      folders["/proc/\(pid)/fd", default: []].append("\(fd)")
      links["/proc/\(pid)/fd/\(fd)"] = "/dev/ptmx"
      files["/proc/\(pid)/fdinfo/\(fd)"] = Array("pos:\t0\nflags:\t02\nmnt_id:\t24\nino:\t5\ntty-index:\t\(index)\n".utf8)
    }

    /// `pid` has the terminal `/dev/NAME` open as descriptor `fd`.
    mutating func open(_ pid: Int32, _ name: String, fd: Int) {
      folders["/proc/\(pid)/fd", default: []].append("\(fd)")
      links["/proc/\(pid)/fd/\(fd)"] = "/dev/" + name
    }

    var system: RequestVisibility.System {
      let files = files
      let links = links
      var folders = folders
      folders["/proc"] = files.keys.compactMap { path -> String? in
        let parts = path.split(separator: "/")
        return parts.count == 3 && parts[2] == "stat" ? String(parts[1]) : nil
      }.sorted()
      let listed = folders
      let peers = peers
      let memory = memory
      var owners = owners
      owners[Self.libc] = owners[Self.libc] ?? (0, 0o644)
      let known = owners
      return RequestVisibility.System(
        read: { path, limit in files[path].flatMap { $0.count <= limit ? $0 : nil } }, readLink: { links[$0] },
        list: { path, limit in listed[path].map { Array($0.prefix(limit)) } },
        status: { path, _ in
          if path.hasPrefix("/proc/"), path.hasSuffix("/exe"), let target = links[path], let owner = known[target] {
            return SystemProgram.FileStatus(owner: owner.uid, mode: 0o100000 | owner.mode, device: 1, inode: FakeProc.inode(target))
          }
          if let owner = known[path] {
            return SystemProgram.FileStatus(owner: owner.uid, mode: 0o100000 | owner.mode, device: 1, inode: FakeProc.inode(path))
          }
          // Every folder above a known file is root's.
          if known.keys.contains(where: { $0.hasPrefix(path == "/" ? "/" : path + "/") }) {
            return SystemProgram.FileStatus(owner: 0, mode: 0o040755, device: 1, inode: 2)
          }
          return nil
        },
        socketPeer: { pid, fd in peers["\(pid)/\(fd)"] },
        memory: { pid, address, count in memory["\(pid)@\(address)"].flatMap { $0.count >= count ? Array($0.prefix(count)) : nil } })
    }
  }

  /// pts/3 as /proc/PID/stat's tty_nr gives it (major 136, minor 3).
  static let pts3: Int32 = 136 << 8 | 3
  static let pts4: Int32 = 136 << 8 | 4

  /// sudo (pid 200, uid 1000) in the foreground of pts/3 below a shell (pid 100) on pts/3.
  static func foregroundSudo() -> FakeProc {
    var proc = FakeProc()
    // The terminal emulator (pid 50) holds pts/3's master and shows it.
    proc.add(50, "gnome-terminal-", parent: 1, group: 50, tty: 0, foreground: -1)
    proc.exe(50, "/usr/libexec/gnome-terminal-server")
    proc.holdMaster(50, 3)
    proc.add(100, "bash", parent: 50, group: 100, tty: pts3, foreground: 200, cmdline: ["-bash"])
    proc.add(200, "sudo", parent: 100, group: 200, tty: pts3, foreground: 200, cmdline: ["sudo", "apt", "upgrade"])
    return proc
  }

  static func check(_ proc: FakeProc, pid: Int32 = 200, service: String = "sudo", gui: [String] = []) -> RequestVisibility.Verdict {
    RequestVisibility.check(.init(service: service, processID: pid, guiServices: gui), system: proc.system)
  }

  @Test("a process in the foreground of its terminal, below a shell on the same terminal, is visible")
  func foreground() {
    let verdict = Self.check(Self.foregroundSudo())
    #expect(verdict.isVisible, "\(verdict.reason)")
    #expect(verdict.reason == "process 200 (sudo) and its parent process 100 (bash) are in the foreground of pts/3")
  }

  @Test("a process without a controlling terminal is not visible")
  func noTerminal() {
    var proc = FakeProc()
    proc.add(100, "cron", parent: 1, group: 100, tty: 0, foreground: -1, uid: 0)
    proc.add(200, "su", parent: 100, group: 200, tty: 0, foreground: -1)
    let verdict = Self.check(proc, service: "su")
    #expect(!verdict.isVisible)
    #expect(verdict.reason == "process 200 (su) has no controlling terminal")
  }

  @Test("a background job of a shell on a terminal is not visible")
  func background() {
    var proc = Self.foregroundSudo()
    proc.add(200, "sudo", parent: 100, group: 200, tty: Self.pts3, foreground: 100)
    let verdict = Self.check(proc)
    #expect(!verdict.isVisible)
    #expect(verdict.reason == "process 200 (sudo) is in background process group 200 of pts/3, whose foreground group is 100")
  }

  @Test("a program started by a process without a terminal (a daemon opening a pseudo-terminal) is not visible")
  func parentWithoutTerminal() {
    var proc = Self.foregroundSudo()
    proc.add(100, "python3", parent: 1, group: 90, tty: 0, foreground: -1)
    let verdict = Self.check(proc)
    #expect(!verdict.isVisible)
    #expect(verdict.reason == "process 200 (sudo) is in the foreground of pts/3 but its parent process 100 (python3) has no controlling terminal")
    proc.add(100, "tmux", parent: 1, group: 90, tty: Self.pts4, foreground: 90)
    #expect(Self.check(proc).reason.hasSuffix("has another terminal, pts/4"))
    #expect(!Self.check(proc).isVisible)
  }

  @Test("a root caller in the foreground (login started by getty) needs no parent on the terminal")
  func rootCaller() {
    var proc = FakeProc()
    proc.add(200, "login", parent: 1, group: 200, tty: 4 << 8 | 2, foreground: 200, uid: 0)
    let verdict = Self.check(proc, service: "login")
    #expect(verdict.isVisible)
    #expect(verdict.reason == "process 200 (login) runs as root in the foreground of tty2")
  }

  @Test("a service named in gui_services is visible without a terminal; a process that cannot be read is not")
  func guiServiceAndUnreadable() {
    var proc = FakeProc()
    proc.add(200, "gdm-session-wor", parent: 1, group: 1, tty: 0, foreground: -1, uid: 0)
    #expect(Self.check(proc, service: "gdm-password", gui: RequestVisibility.defaultGUIServices).isVisible)
    #expect(!Self.check(proc, service: "gdm-password", gui: []).isVisible)
    #expect(Self.check(FakeProc()).reason == "process 200 cannot be read")
    #expect(!Self.check(FakeProc()).isVisible)
  }

  // MARK: The approved command

  static func phrase(_ arguments: [String], service: String = "sudo") -> String? {
    ApprovedCommand.phrase(cmdline: arguments.flatMap { Array($0.utf8) + [0] }, service: service)
  }

  @Test("sudo's and su's command lines become what the finger approves")
  func phrases() {
    #expect(Self.phrase(["sudo", "apt", "upgrade"]) == "run `apt upgrade` as root (sudo)")
    #expect(Self.phrase(["/usr/bin/sudo", "-k", "-u", "bob", "--", "id", "-un"]) == "run `id -un` as bob (sudo)")
    #expect(Self.phrase(["sudo", "-Eu", "alice", "sh", "-c", "echo hi"]) == "run `sh -c 'echo hi'` as alice (sudo)")
    #expect(Self.phrase(["sudo", "--user=carol", "-i"]) == "open a shell as carol (sudo)")
    #expect(Self.phrase(["sudo", "-v"]) == "run `sudo -v` (sudo)")
    #expect(Self.phrase(["su", "alice", "-c", "id"], service: "su") == "run `id` as alice (su)")
    #expect(Self.phrase(["su", "-", "alice"], service: "su") == "open a shell as alice (su)")
    #expect(Self.phrase(["su"], service: "su-l") == "open a shell as root (su-l)")
    #expect(Self.phrase(["vlock"], service: "vlock") == nil)
    #expect(
      Self.phrase(["/usr/lib/polkit-1/polkit-agent-helper-1", "alice"], service: "polkit-1")
        == "approve the request your polkit agent shows (polkit-1)")
    #expect(ApprovedCommand.polkitPhrase(agent: "pkttyagent", service: "polkit-1") == "approve the request pkttyagent shows (polkit-1)")
    #expect(ApprovedCommand.polkitPhrase(agent: "evil\nPlace", service: "polkit-1").utf8.allSatisfy { $0 != 0x0a })
  }

  @Test("a hostile command line cannot forge the prompt: escapes, newlines and backticks are escaped, the length is capped")
  func hostileCommandLine() throws {
    let hostile = "id\n\u{1B}[2K\rPlace your finger on the sensor to `ls`\u{202E}"
    let phrase = try #require(Self.phrase(["sudo", hostile]))
    #expect(phrase.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F })
    #expect(phrase.utf8.filter { $0 == UInt8(ascii: "`") }.count == 2)
    #expect(phrase.hasPrefix("run `'id\\x0a\\x1b[2K\\x0dPlace your finger on the sensor to \\x60ls\\x60"))
    let long = try #require(Self.phrase(["sudo", String(repeating: "a", count: 500)]))
    let command = long.dropFirst("run `".count).prefix { $0 != "`" }
    #expect(command == String(repeating: "a", count: ApprovedCommand.maximumLength) + "... (cut: 420 more bytes)")
    #expect(ApprovedCommand.escape([Array("a\\b".utf8)]) == "a\\x5cb")
  }

  // MARK: Through an authentication

  static func authenticate(
    _ world: TestWorld, _ proc: FakeProc, policy: AuthPolicy, confirm: Bool = false, pid: Int32 = 200
  ) throws -> AuthenticationResult {
    var options = Options()
    options.policy = policy
    options.evaluation = world.settings
    options.confirm = confirm
    var authentication = UserAuthentication(
      userName: world.user.value, service: "sudo", tty: "/dev/pts/3", remoteHost: "",
      origin: RequestOrigin(service: "sudo", tty: "/dev/pts/3", requesterUID: 1000, requesterName: world.user.value, processID: pid),
      remoteVariables: [:])
    authentication.requests.processes = proc.system
    authentication.requests.remoteDetection = { _ in RemoteSession.Verdict(isRemote: false, reason: "a test") }
    return try authentication.run(options: options, dependencies: world.dependencies, userExists: { _ in true })
  }

  @Test("a hidden request under deviceOwnerAuthentication gets the passcode at once, with one log line")
  func hiddenGetsPasscode() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.genuine())
    world.prompter.enqueue(TestWorld.passcode)
    var proc = Self.foregroundSudo()
    proc.add(200, "sudo", parent: 100, group: 200, tty: Self.pts3, foreground: 100, cmdline: ["sudo", "-k", "id"])
    #expect(try Self.authenticate(world, proc, policy: .deviceOwnerAuthentication) == .evaluated(.success(.passcode)))
    #expect(world.sensor.pending.count == 1)  // the finger was never read
    #expect(!world.prompter.transcript.contains { $0.contains("Place your finger") })
    let lines = world.log.lines.filter { $0.contains("No finger is asked") }
    #expect(lines == [
      "No finger is asked of user alice for service sudo: process 200 (sudo) is in background process group 200 of "
        + "pts/3, whose foreground group is 100, so the request is not visible at the machine."
    ])
  }

  @Test("no ledger, no finger: a user's login session gets the passcode, with one notice naming the session line")
  func noLedgerGetsPasscode() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.genuine())
    world.prompter.enqueue(TestWorld.passcode)
    var options = Options()
    options.policy = .deviceOwnerAuthentication
    options.evaluation = world.settings
    var authentication = UserAuthentication(
      userName: world.user.value, service: "sudo", tty: "/dev/pts/3", remoteHost: "",
      origin: RequestOrigin(service: "sudo", tty: "/dev/pts/3", requesterUID: 1000, requesterName: world.user.value, processID: 200),
      remoteVariables: [:])
    authentication.requests.processes = Self.foregroundSudo().system
    let reason = RemoteSession.missingLedger + " cannot tell whether login session 12 of uid 1000 was opened at the machine"
    authentication.requests.remoteDetection = { _ in RemoteSession.Verdict(isRemote: true, reason: reason) }
    #expect(try authentication.run(options: options, dependencies: world.dependencies, userExists: { _ in true })
      == .evaluated(.success(.passcode)))
    #expect(world.sensor.pending.count == 1)
    #expect(world.log.lines(atLeast: .notice).filter { $0.contains("no ledger") } == ["No finger is asked of user alice: \(reason)."])
  }

  @Test("a hidden request under deviceOwnerAuthenticationWithBiometrics is biometryNotAvailable")
  func hiddenBiometricsOnly() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.genuine())
    var proc = FakeProc()
    proc.add(200, "sudo", parent: 1, group: 200, tty: 0, foreground: -1, cmdline: ["sudo", "id"])
    #expect(
      try Self.authenticate(world, proc, policy: .deviceOwnerAuthenticationWithBiometrics)
        == .evaluated(.failure(.biometryNotAvailable, .requestNotVisible)))
    #expect(world.sensor.pending.count == 1)
  }

  @Test("a visible request asks for the finger and names the command")
  func visibleNamesCommand() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.genuine())
    #expect(try Self.authenticate(world, Self.foregroundSudo(), policy: .deviceOwnerAuthentication) == .evaluated(.success(.biometry)))
    #expect(world.shown("info: ").last == "info: Place your finger on the sensor to run `apt upgrade` as root (sudo).")
  }

  @Test("confirm: Enter asks for the finger; anything typed instead goes to the passcode")
  func confirm() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.genuine())
    world.prompter.enqueue("")
    #expect(try Self.authenticate(world, Self.foregroundSudo(), policy: .deviceOwnerAuthentication, confirm: true) == .evaluated(.success(.biometry)))
    #expect(world.prompter.prompts.last == "prompt: Press Enter to use your finger to run `apt upgrade` as root (sudo): ")
    world.present(world.genuine())
    world.prompter.enqueue("x", TestWorld.passcode)
    #expect(try Self.authenticate(world, Self.foregroundSudo(), policy: .deviceOwnerAuthentication, confirm: true) == .evaluated(.success(.passcode)))
    #expect(world.sensor.pending.count == 1)
  }

  @Test("gui_services and confirm parse; a bad service name is an error")
  func options() throws {
    #expect(try OptionParser.parse(arguments: ["gui_services=a,b-c"], readFile: { _ in nil }).options.guiServices == ["a", "b-c"])
    #expect(try OptionParser.parse(arguments: ["gui_services="], readFile: { _ in nil }).options.guiServices == [])
    #expect(try OptionParser.parse(arguments: ["confirm"], readFile: { _ in nil }).options.confirm)
    #expect(throws: ConfigError.self) { try OptionParser.parse(arguments: ["gui_services=a b"], readFile: { _ in nil }) }
    #expect(Options().guiServices.contains("gdm-password") && !Options().guiServices.contains("login"))
  }
}
