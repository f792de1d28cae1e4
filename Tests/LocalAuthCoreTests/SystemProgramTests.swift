#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// Issue 27, findings 4 and 5: a prompt says who really asks, and visibility is never self-declared. What a process
/// runs is read from the kernel (/proc/PID/exe, stat, environ, status), here from fakes.
@Suite("System programs: the kernel's word on what a caller runs")
struct SystemProgramTests {
  /// A fake system: /proc files, link targets and stat results.
  struct FakeSystem {
    var files: [String: [UInt8]] = [:]
    var links: [String: String] = [:]
    var statuses: [String: SystemProgram.FileStatus] = [:]
    var folders: [String: [String]] = [:]

    static let folder = SystemProgram.FileStatus(owner: 0, mode: 0o040755, device: 1, inode: 2)
    static let program = SystemProgram.FileStatus(owner: 0, mode: 0o100755, device: 1, inode: 77)

    /// Process `pid` running `path` (a root-owned 0755 file in root-owned folders unless changed afterwards), on
    /// terminal `tty` in its foreground, with `environment` and TracerPid 0.
    mutating func add(
      _ pid: Int32, runs path: String, tty: Int32 = 0, uid: UInt32 = 1000, environment: [String] = ["HOME=/home/alice"]
    ) {
      links["/proc/\(pid)/exe"] = path
      statuses["/proc/\(pid)/exe"] = Self.program
      statuses[path] = Self.program
      var folder = path
      while let slash = folder.lastIndex(of: "/") {
        folder = slash == folder.startIndex ? "/" : String(folder[..<slash])
        statuses[folder] = Self.folder
        if folder == "/" { break }
      }
      files["/proc/\(pid)/environ"] = environment.flatMap { Array($0.utf8) + [0] }
      files["/proc/\(pid)/maps"] = Array(
        ("00400000-00500000 r--p 00000000 00:01 77    \(path)\n"
          + "00500000-00600000 r-xp 00100000 00:01 77    \(path)\n"
          + "7ffd0000-7ffd2000 r-xp 00000000 00:00 0    [vdso]\n").utf8)
      files["/proc/\(pid)/status"] = Array("Name:\tx\nUid:\t\(uid)\t0\t0\t0\nTracerPid:\t0\n".utf8)
      files["/proc/\(pid)/stat"] = Array("\(pid) (x) S 1 \(pid) \(pid) \(tty) \(tty == 0 ? -1 : pid) 0 0\n".utf8)
      files["/proc/\(pid)/cmdline"] = Array("sudo\0apt\0upgrade\0".utf8)
    }

    var system: RequestVisibility.System {
      let files = files
      let links = links
      let statuses = statuses
      let folders = folders
      var system = RequestVisibility.System(read: { path, limit in files[path].flatMap { $0.count <= limit ? $0 : nil } })
      system.readLink = { links[$0] }
      system.list = { path, limit in folders[path].map { Array($0.prefix(limit)) } }
      system.status = { path, _ in statuses[path] }
      return system
    }
  }

  static func check(_ fake: FakeSystem, pid: Int32 = 300) -> SystemProgram.Verdict {
    SystemProgram.check(pid, system: fake.system)
  }

  @Test("a root-owned program in a system folder, started cleanly, is a system program named by its file")
  func systemFolder() {
    for path in ["/usr/bin/swaylock", "/usr/sbin/gdm3", "/usr/libexec/gdm-session-worker", "/usr/lib/x/y/locker"] {
      var fake = FakeSystem()
      fake.add(300, runs: path)
      let verdict = Self.check(fake)
      #expect(verdict.name == path.split(separator: "/").last.map(String.init), "\(verdict.reason)")
      #expect(verdict.reason == "process 300 runs system program \(path)")
      #expect(verdict.serviceName(pid: 300) == verdict.name)
    }
  }

  @Test("a copy in /tmp, /usr/local or home, a deleted file, or an odd path is not a system program")
  func otherFolders() {
    for path in [
      "/tmp/x/sudo", "/usr/local/bin/swaylock", "/home/alice/bin/sudo", "/usr/bin/swaylock (deleted)",
      "/usr/bin/../../tmp/sudo", "/usr/bin/sub/swaylock", "sudo",
    ] {
      var fake = FakeSystem()
      fake.add(300, runs: path)
      let verdict = Self.check(fake)
      #expect(verdict.name == nil, "\(path)")
      #expect(verdict.reason.hasSuffix("which is not in a system folder"), "\(verdict.reason)")
      // The name it goes by holds a '/', so it never equals a PAM service name.
      #expect(verdict.serviceName(pid: 300).contains("/"), "\(path)")
    }
    #expect(Self.check(FakeSystem()).serviceName(pid: 300) == "/proc/300/exe")
    #expect(Self.check(FakeSystem()).name == nil)
  }

  @Test("issue 37 (Q): a library from outside the system folders, or code no file backs, disqualifies it; the environment proves nothing")
  func mappedCode() {
    // A preloaded library that rewrote LD_PRELOAD out of /proc/PID/environ is still in /proc/PID/maps.
    var preloaded = FakeSystem()
    preloaded.add(300, runs: "/usr/bin/swaylock", environment: ["HOME=/home/alice", "XD_PRELOAD=/tmp/evil.so"])
    preloaded.files["/proc/300/maps"]! += Array("7f000000-7f001000 r-xp 00000000 00:01 901    /tmp/evil.so\n".utf8)
    preloaded.statuses["/tmp/evil.so"] = SystemProgram.FileStatus(owner: 1000, mode: 0o100755, device: 1, inode: 901)
    #expect(Self.check(preloaded).name == nil)
    #expect(Self.check(preloaded).reason
      == "process 300 runs /usr/bin/swaylock, with /tmp/evil.so mapped, which is not in a system folder")
    // Code written at run time (an anonymous executable mapping) after the library unmapped itself.
    var anonymous = FakeSystem()
    anonymous.add(300, runs: "/usr/bin/swaylock")
    anonymous.files["/proc/300/maps"]! += Array("7f000000-7f001000 rwxp 00000000 00:00 0 \n".utf8)
    #expect(Self.check(anonymous).reason
      == "process 300 runs /usr/bin/swaylock, with executable memory no file backs (code written at run time)")
    // A library in /usr/lib that is not root's alone, or whose file was replaced since it was mapped.
    var library = FakeSystem()
    library.add(300, runs: "/usr/bin/swaylock")
    library.files["/proc/300/maps"]! += Array(
      "7f000000-7f001000 r-xp 00000000 00:01 902    /usr/lib/x86_64-linux-gnu/libpam.so.0\n".utf8)
    library.statuses["/usr/lib/x86_64-linux-gnu/libpam.so.0"] = SystemProgram.FileStatus(owner: 0, mode: 0o100644, device: 1, inode: 902)
    library.statuses["/usr/lib/x86_64-linux-gnu"] = FakeSystem.folder
    library.statuses["/usr/lib"] = FakeSystem.folder
    #expect(Self.check(library).name == "swaylock", "\(Self.check(library).reason)")
    library.statuses["/usr/lib/x86_64-linux-gnu/libpam.so.0"]?.inode = 903
    #expect(Self.check(library).reason.hasSuffix("libpam.so.0 mapped, whose path no longer names the mapped file"))
    library.statuses["/usr/lib/x86_64-linux-gnu/libpam.so.0"] = SystemProgram.FileStatus(owner: 1000, mode: 0o100644, device: 1, inode: 902)
    #expect(Self.check(library).name == nil)
    // Unreadable mappings: not judged a system program.
    var unreadable = FakeSystem()
    unreadable.add(300, runs: "/usr/bin/swaylock")
    unreadable.files["/proc/300/maps"] = nil
    #expect(Self.check(unreadable).reason == "process 300 runs /usr/bin/swaylock, whose mappings cannot be read")
    // An LD_PRELOAD left in the environment, with nothing mapped from it, changes nothing.
    var stale = FakeSystem()
    stale.add(300, runs: "/usr/bin/swaylock", environment: ["LD_PRELOAD=/tmp/gone.so"])
    #expect(Self.check(stale).name == "swaylock")
  }

  @Test("a file or folder not root's alone, a path that names another file, or a traced process is refused")
  func ownersAndIdentity() {
    var fake = FakeSystem()
    fake.add(300, runs: "/usr/bin/swaylock")
    var userOwned = fake
    userOwned.statuses["/proc/300/exe"] = SystemProgram.FileStatus(owner: 1000, mode: 0o100755, device: 1, inode: 77)
    userOwned.statuses["/usr/bin/swaylock"] = userOwned.statuses["/proc/300/exe"]
    #expect(Self.check(userOwned).name == nil)
    #expect(Self.check(userOwned).reason.hasSuffix("which is not a regular file of root's that only root can write"))
    var writable = fake
    writable.statuses["/proc/300/exe"] = SystemProgram.FileStatus(owner: 0, mode: 0o100777, device: 1, inode: 77)
    writable.statuses["/usr/bin/swaylock"] = writable.statuses["/proc/300/exe"]
    #expect(Self.check(writable).name == nil)
    var groupWritable = fake
    groupWritable.statuses["/proc/300/exe"] = SystemProgram.FileStatus(owner: 0, mode: 0o100775, device: 1, inode: 77)
    groupWritable.statuses["/usr/bin/swaylock"] = groupWritable.statuses["/proc/300/exe"]
    #expect(Self.check(groupWritable).name == nil)
    var folder = fake
    folder.statuses["/usr/bin"] = SystemProgram.FileStatus(owner: 1000, mode: 0o040755, device: 1, inode: 3)
    #expect(Self.check(folder).reason == "process 300 runs /usr/bin/swaylock, in folder /usr/bin, which is not root's alone")
    // A bind mount in the caller's namespace, or a file replaced since: the path names another file.
    var other = fake
    other.statuses["/usr/bin/swaylock"] = SystemProgram.FileStatus(owner: 0, mode: 0o100755, device: 1, inode: 78)
    #expect(Self.check(other).reason.hasSuffix("whose path no longer names the file it runs"))
    #expect(Self.check(other).name == nil)
    var traced = fake
    traced.files["/proc/300/status"] = Array("Uid:\t1000\t0\t0\t0\nTracerPid:\t299\n".utf8)
    #expect(Self.check(traced).name == nil)
    #expect(Self.check(fake).name == "swaylock")
  }

  // MARK: The helper's PAM mode names its caller from the kernel

  static func service(_ fake: FakeSystem, pid: Int32 = 300, log: MemoryLog = MemoryLog()) -> HelperService {
    var service = HelperService(channel: HelperChannel(fd: -1), realUserName: "alice", callerPID: pid, log: log)
    service.processes = fake.system
    return service
  }

  @Test("a hello naming sudo and another terminal, from python run as 'sudo', is named by its executable and terminal")
  func helperNamesFromKernel() {
    var fake = FakeSystem()
    fake.add(300, runs: "/tmp/tmp.x/sudo", tty: 136 << 8 | 5)
    let log = MemoryLog()
    let hello = HelperHello(user: "alice", service: "sudo", tty: "/dev/pts/4", remoteHost: "")
    let named = Self.service(fake, log: log).callerName(hello)
    #expect(named.service == "/tmp/tmp.x/sudo")
    #expect(named.tty == "/dev/pts/5")
    #expect(log.lines == [
      "localauth-helper names its caller (pid 300) service /tmp/tmp.x/sudo on terminal /dev/pts/5 from the kernel "
        + "(process 300 runs /tmp/tmp.x/sudo, which is not in a system folder), not service sudo on terminal "
        + "/dev/pts/4 as its hello claims."
    ])
    // A system python run as `exec -a sudo`: its name is python's, never sudo's.
    var python = FakeSystem()
    python.add(300, runs: "/usr/bin/python3.12")
    #expect(Self.service(python).callerName(hello) == ("python3.12", ""))
    // A real screen locker's hello agrees with the kernel: nothing is logged.
    var locker = FakeSystem()
    locker.add(300, runs: "/usr/bin/swaylock")
    let quiet = MemoryLog()
    let agreed = Self.service(locker, log: quiet).callerName(HelperHello(user: "alice", service: "swaylock", tty: "", remoteHost: ""))
    #expect(agreed == ("swaylock", ""))
    #expect(quiet.lines.isEmpty)
  }

  static func authenticate(
    _ world: TestWorld, _ fake: FakeSystem, hello: HelperHello, gui: [String] = RequestVisibility.defaultGUIServices
  ) throws -> AuthenticationResult {
    var options = Options()
    options.evaluation = world.settings
    options.guiServices = gui
    let caller = Self.service(fake).callerName(hello)
    var authentication = UserAuthentication(
      userName: world.user.value, service: caller.service, tty: caller.tty, remoteHost: "",
      origin: RequestOrigin(service: caller.service, tty: caller.tty, requesterUID: 1000, requesterName: world.user.value, processID: 300),
      remoteVariables: [:])
    authentication.requests.processes = fake.system
    authentication.namesCommand = false
    authentication.requests.remoteDetection = { _ in RemoteSession.Verdict(isRemote: false, reason: "a test") }
    return try authentication.run(options: options, dependencies: world.dependencies, userExists: { _ in true })
  }

  @Test("the helper never labels a request 'as root (sudo)', even from a caller whose command line says sudo")
  func helperNeverAsRoot() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.genuine())
    var fake = FakeSystem()
    fake.add(300, runs: "/usr/bin/python3.12", tty: 136 << 8 | 3)
    fake.files["/proc/1/stat"] = Array("1 (bash) S 0 1 1 \(136 << 8 | 3) 300 0 0\n".utf8)
    // pts/3's master is held by a terminal of root's (TerminalWatch): someone watches it.
    fake.add(2, runs: "/usr/bin/script", uid: 0)
    fake.folders["/proc/2/fd"] = ["5"]
    fake.links["/proc/2/fd/5"] = "/dev/ptmx"
    fake.files["/proc/2/fdinfo/5"] = Array("pos:\t0\nflags:\t02\ntty-index:\t3\n".utf8)
    fake.folders["/proc"] = ["1", "2", "300"]
    fake.folders["/proc/1/fd"] = []
    fake.folders["/proc/300/fd"] = []
    let result = try Self.authenticate(world, fake, hello: HelperHello(user: "alice", service: "sudo", tty: "", remoteHost: ""))
    #expect(result == .evaluated(.success(.biometry)))
    #expect(!world.prompter.transcript.contains { $0.contains("as root") || $0.contains("(sudo)") }, "\(world.prompter.transcript)")
    #expect(world.shown("info: ").last == "info: Place your finger on the sensor to authenticate for python3.12.")
  }

  @Test("a hello naming swaylock from a program that is not swaylock is not visible; the real swaylock is")
  func guiServiceFromKernel() throws {
    let hello = HelperHello(user: "alice", service: "swaylock", tty: "", remoteHost: "")
    for (path, visible) in [("/usr/bin/python3.12", false), ("/tmp/x/swaylock", false), ("/usr/bin/swaylock", true)] {
      let world = try TestWorld()
      try world.prime()
      world.present(world.genuine())
      // The real swaylock is also a screen locker (ScreenLocker): it is asked the passcode first, and Return on an
      // empty field chooses the finger. The others are asked the finger first, which they cannot have.
      world.prompter.enqueue(visible ? "" : TestWorld.passcode)
      var fake = FakeSystem()
      fake.add(300, runs: path)
      let asked = world.prompter.prompts.count
      let result = try Self.authenticate(world, fake, hello: hello)
      #expect(result == .evaluated(.success(visible ? .biometry : .passcode)), "\(path)")
      #expect(
        world.prompter.prompts.dropFirst(asked).first
          == "prompt: " + (visible ? LockerAnswer.prompt(.touchID, passcode: .separate) : "Enter Passcode: "), "\(path)")
      #expect(world.log.lines.contains { $0.hasPrefix("No finger is asked") } == !visible, "\(world.log.lines)")
    }
  }

  // MARK: An app's own dialog

  @Test("an app's own dialog counts only when its executable is a system program named in gui_services")
  func ownDialog() throws {
    let parent = getppid()
    let name = AppSession.executableName(parent)
    for (path, counts) in [("/tmp/x/" + name, false), ("/home/alice/" + name, false), ("/usr/bin/" + name, true)] {
      let world = try TestWorld()
      try world.prime()
      var fake = FakeSystem()
      fake.add(parent, runs: path)  // no terminal: only the dialog could make the request visible
      let run = try AppSessionRun(world: world, system: fake.system)
      defer { run.finish() }
      world.present(world.genuine())
      let answer = try run.call(AppProtocolSessionTests.evaluate(.deviceOwnerAuthenticationWithBiometrics, ownInterface: true))
      let hidden = world.log.lines.contains { $0.hasPrefix("No finger is asked of user alice for app \(name)") }
      #expect(hidden == !counts, "\(path): \(world.log.lines)")
      if counts {
        #expect(answer.requests.count == 1, "\(answer.messages)")
      } else {
        #expect(answer.requests.isEmpty, "\(answer.messages)")
        guard case .evaluation(.failure(let code, _), _) = answer.reply else {
          Issue.record("not a failed evaluation: \(String(describing: answer.reply))")
          continue
        }
        #expect(code == .biometryNotAvailable)
        #expect(world.log.lines.contains {
          $0 == "App \(name) (pid \(parent)) claims its own dialog, which counts only for a system program named in "
            + "gui_services: process \(parent) runs \(path), which is not in a system folder."
        }, "\(world.log.lines)")
      }
    }
  }

  // MARK: The approved command

  static func phrase(_ arguments: [String]) -> String? {
    ApprovedCommand.phrase(cmdline: arguments.flatMap { Array($0.utf8) + [0] }, service: "sudo")
  }

  @Test("a quote inside an argument is escaped, so arguments cannot be confused")
  func quoting() {
    // Two arguments `a' 'b` and one argument `a b` must not read alike.
    #expect(Self.phrase(["sudo", "echo", "a'", "'b"]) == "run `echo a\\x27 \\x27b` as root (sudo)")
    #expect(Self.phrase(["sudo", "echo", "a b"]) == "run `echo 'a b'` as root (sudo)")
    #expect(Self.phrase(["sudo", "echo", "x' 'y"]) == "run `echo 'x\\x27 \\x27y'` as root (sudo)")
    #expect(Self.phrase(["sudo", "echo", ""]) == "run `echo ''` as root (sudo)")
  }

  @Test("a cut command ends visibly, with the bytes left out, and never inside a UTF-8 character")
  func cut() throws {
    let long = ApprovedCommand.escape([Array("echo".utf8), Array(String(repeating: "a", count: 200).utf8)])
    #expect(long == "echo " + String(repeating: "a", count: 75) + "... (cut: 125 more bytes)")
    // "é" is two bytes, each shown as \xNN (4 characters): a cut keeps both or neither.
    let accents = ApprovedCommand.escape([Array(String(repeating: "é", count: 30).utf8)])
    let shown = try #require(accents.split(separator: ".").first)
    #expect(shown.count % 8 == 0, "\(accents)")
    #expect(shown.count == 80, "\(accents)")
    #expect(accents.hasSuffix("... (cut: 40 more bytes)"), "\(accents)")
    let short = ApprovedCommand.escape([Array("id".utf8)])
    #expect(short == "id")
  }
}
