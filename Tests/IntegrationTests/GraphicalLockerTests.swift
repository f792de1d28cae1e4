import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What Debian's i3lock under Xvfb needs here: the helper and mount namespaces (`Artifacts.helperAvailable`), the
/// packages xvfb, i3lock and xdotool, the system's PAM module folder (bound over with a copy holding the module), and
/// root (to create the user and bind the folders).
enum GraphicalLockerEnvironment {
  static let xvfb = "/usr/bin/Xvfb"
  static let i3lock = "/usr/bin/i3lock"
  static let xdotool = "/usr/bin/xdotool"
  /// The folder libpam loads modules from, as the kernel names it (merged /usr: /lib is /usr/lib).
  static let moduleFolder: String? = ["/lib/x86_64-linux-gnu/security", "/lib/aarch64-linux-gnu/security"]
    .lazy.compactMap { path -> String? in
      guard let resolved = realpath(path, nil) else { return nil }
      defer { free(resolved) }
      return String(cString: resolved)
    }.first

  static var capable: Bool {
    getuid() == 0 && Artifacts.helperAvailable && moduleFolder != nil
      && [xvfb, i3lock, xdotool].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
  }

  static let skipMessage: Comment =
    "Needs root, LOCALAUTH_HELPER naming the built localauth-helper, mount namespaces, and the packages xvfb, i3lock and xdotool."
}

extension RealPAM {
  /// Issue 38, item 4: a graphical locker takes the passcode typed before Return or the finger, whichever the user
  /// chose (docs/RULES.md, "Screen lockers: the typed passcode or the finger"). Debian's own /usr/bin/i3lock, run by
  /// the unprivileged test user with no terminal on an Xvfb display, through the setuid helper; the helper's
  /// configuration keeps the default `locker_programs=` and a 30 s finger timeout, so that a passcode checked only
  /// after the finger's wait would show in the time it took.
  @Suite(
    "Screen locker: Debian's i3lock under Xvfb", .serialized,
    .enabled(if: GraphicalLockerEnvironment.capable, GraphicalLockerEnvironment.skipMessage))
  struct GraphicalLockerTests {
    @Test("Return on an empty field asks for the finger, and a touch unlocks i3lock")
    func touchUnlocks() throws {
      try withSandbox { s in
        try Setups.ready(s)
        let locker = try I3lockOnXvfb(s)
        defer { locker.stop() }
        try locker.start()
        try s.touch()
        let exit = try s.presentingTouches { () throws -> Int32? in
          try locker.key("Return")
          return try locker.waitForExit(seconds: 20)
        }
        #expect(exit == 0, "i3lock did not unlock")
        let record = try #require(try s.record())
        #expect(record.lastBiometricSuccess != nil)
        #expect(record.passcodeFailures == 0)
      }
    }

    @Test("A passcode typed before Return unlocks i3lock at once, not after the finger's 30 s")
    func typedPasscodeUnlocks() throws {
      try withSandbox { s in
        try Setups.ready(s)
        let locker = try I3lockOnXvfb(s)
        defer { locker.stop() }
        try locker.start()
        try locker.type("1234")
        let pressed = Date()
        try locker.key("Return")
        let exit = try locker.waitForExit(seconds: 20)
        let took = Date().timeIntervalSince(pressed)
        #expect(exit == 0, "i3lock did not unlock")
        #expect(took < 5, "i3lock unlocked \(took) s after Return: the passcode waited for the finger")
        let record = try #require(try s.record())
        #expect(record.lastPasscodeSuccess != nil)
        #expect(record.passcodeFailures == 0)
      }
    }

    @Test("A wrong passcode typed before Return leaves i3lock locked and is counted; the right one then unlocks it")
    func wrongPasscodeCounted() throws {
      try withSandbox { s in
        try Setups.ready(s)
        let locker = try I3lockOnXvfb(s)
        defer { locker.stop() }
        try locker.start()
        try locker.type("0000")
        let pressed = Date()
        try locker.key("Return")
        let counted = locker.within(seconds: 20) { (try? s.record()?.passcodeFailures) == 1 }
        let took = Date().timeIntervalSince(pressed)
        #expect(counted, "the wrong passcode was not counted")
        #expect(took < 5, "the wrong passcode was counted \(took) s after Return: it waited for the finger")
        #expect(locker.helperEnded(within: 10), "localauth-helper still runs after the wrong passcode")
        #expect(locker.isRunning, "i3lock exited after a wrong passcode")

        // i3lock shows its "wrong" state for a moment; then the right passcode unlocks it.
        usleep(2_500_000)
        try locker.type("1234")
        try locker.key("Return")
        #expect(try locker.waitForExit(seconds: 20) == 0, "i3lock did not unlock with the right passcode")
        #expect(try s.record()?.passcodeFailures == 0)
      }
    }
  }
}

/// Debian's /usr/bin/i3lock run by the sandbox's user with no terminal on a private Xvfb display, in a private mount
/// namespace where /etc/security is HelperWorld's copy, /etc/pam.d holds an `i3lock` service with the module, and the
/// system's PAM module folder is a copy holding the built module (the module's own mapping in i3lock must be a
/// root-owned file in a system folder, or i3lock is not a system program: `SystemProgram`). `stop()` ends every
/// process of the user.
final class I3lockOnXvfb {
  let sandbox: Sandbox
  let world: HelperWorld
  let pamDir: String
  let moduleDir: String
  /// The user's 0700 folder holding i3lock's exit status.
  let runDir: String
  let display: Int
  var exitFile: String { runDir + "/exit" }
  static let poll: useconds_t = 50_000

  init(_ sandbox: Sandbox) throws {
    self.sandbox = sandbox
    world = try HelperWorld(sandbox, extraConfig: ["timeout=30", "gui_services=i3lock"])
    pamDir = sandbox.root + "/etc-pam.d"
    moduleDir = sandbox.root + "/security"
    runDir = sandbox.root + "/run"
    display = Self.freeDisplay()
    let system = GraphicalLockerEnvironment.moduleFolder ?? ""
    try Run.checked("/bin/cp", ["-a", system, moduleDir])
    let stage = (Artifacts.module as NSString).deletingLastPathComponent
    try Run.checked("/usr/bin/install", ["-o", "root", "-g", "root", "-m", "0644", Artifacts.module, moduleDir + "/pam_localauth.so"])
    try Run.checked("/usr/bin/install", ["-d", "-o", "root", "-g", "root", "-m", "0755", moduleDir + "/pam_localauth"])
    try Run.checked(
      "/usr/bin/install", ["-o", "root", "-g", "root", "-m", "0644", stage + "/pam_localauth/extra.so", moduleDir + "/pam_localauth/extra.so"])
    try Run.checked("/bin/cp", ["-a", "/etc/pam.d", pamDir])
    let line = world.moduleLine().replacingOccurrences(of: Artifacts.module, with: system + "/pam_localauth.so")
    try ([line, "account required pam_permit.so"].joined(separator: "\n") + "\n")
      .write(toFile: pamDir + "/i3lock", atomically: true, encoding: .utf8)
    chmod(pamDir + "/i3lock", 0o644)
    guard mkdir(runDir, 0o700) == 0, chown(runDir, sandbox.uid, world.gid) == 0 else {
      throw SandboxError.setup("cannot make \(runDir) for \(sandbox.user)")
    }
  }

  /// A display number no X server uses now.
  static func freeDisplay() -> Int {
    let start = 100 + Int(getpid() % 400)
    return (start..<(start + 200)).first { access("/tmp/.X\($0)-lock", F_OK) != 0 && access("/tmp/.X11-unix/X\($0)", F_OK) != 0 }
      ?? start
  }

  /// The start of a command that runs the rest as the test user with a clean environment on this display.
  private var asUser: String {
    "/usr/bin/setpriv --reuid \(sandbox.uid) --regid \(world.gid) --clear-groups /usr/bin/env --default-signal -i HOME=/ "
      + "USER=\(sandbox.user) LOGNAME=\(sandbox.user) PATH=/usr/bin:/bin LANG=C DISPLAY=:\(display) "
  }

  /// A shell line that closes every descriptor above 2, so that nothing started in the background keeps a pipe of
  /// the test process open (Foundation's Process waits for them).
  private static let closeDescriptors = "for fd in /proc/$$/fd/*; do fd=${fd##*/}; if [ \"$fd\" -gt 2 ]; then eval \"exec $fd>&-\"; fi; done; "

  /// Starts Xvfb as the user, then i3lock (`-n`: it stays in the foreground of its shell, which writes its exit status)
  /// with no controlling terminal in the namespace, and waits until i3lock runs and has had time to grab the keyboard.
  func start() throws {
    let xvfb = Self.closeDescriptors + "exec /usr/bin/setsid -f \(asUser)\(GraphicalLockerEnvironment.xvfb) :\(display) "
      + "-nolisten tcp -ac </dev/null >/dev/null 2>&1"
    var run = try Run.program("/bin/bash", ["-c", xvfb], timeout: 20)
    guard run.status == 0 else { throw SandboxError.setup("starting Xvfb failed (\(run.status)): \(run.stderr)") }
    try wait("Xvfb's socket", seconds: 15) { access("/tmp/.X11-unix/X\(self.display)", F_OK) == 0 }
    let script = Self.closeDescriptors
      + "mount --bind \"$0\" /etc/security && mount --bind \"$1\" /etc/pam.d && mount --bind \"$2\" \"$3\" && "
      + "exec /usr/bin/setsid -f \(asUser)/bin/sh -c '\(GraphicalLockerEnvironment.i3lock) -n; echo $? >\"$0\"' \"$4\" "
      + "</dev/null >/dev/null 2>&1"
    run = try Run.program(
      "/usr/bin/unshare",
      ["--mount", "--propagation", "private", "/bin/bash", "-c", script, world.etcSecurity, pamDir, moduleDir,
        GraphicalLockerEnvironment.moduleFolder ?? "", exitFile], timeout: 20)
    guard run.status == 0 else { throw SandboxError.setup("starting i3lock failed (\(run.status)): \(run.stderr)") }
    try wait("i3lock to run", seconds: 15) { self.isRunning }
    usleep(1_000_000)
    guard isRunning else { throw SandboxError.setup("i3lock exited at once (status \(exitStatus().map(String.init) ?? "none"))") }
  }

  /// Runs xdotool as the user on the display.
  private func xdotool(_ arguments: [String]) throws {
    let run = try Run.program(
      "/usr/bin/setpriv",
      ["--reuid", "\(sandbox.uid)", "--regid", "\(world.gid)", "--clear-groups", "/usr/bin/env", "-i", "DISPLAY=:\(display)",
        GraphicalLockerEnvironment.xdotool] + arguments, timeout: 20)
    guard run.status == 0 else { throw SandboxError.setup("xdotool \(arguments.joined(separator: " ")) failed: \(run.stderr)") }
  }

  /// Types `text` into i3lock (without Return).
  func type(_ text: String) throws { try xdotool(["type", "--delay", "30", text]) }

  /// Presses `key` ("Return").
  func key(_ key: String) throws { try xdotool(["key", key]) }

  /// i3lock's exit status once its shell wrote it; nil while it runs.
  func exitStatus() -> Int32? {
    guard let text = try? String(contentsOfFile: exitFile, encoding: .utf8),
      let status = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    else { return nil }
    return status
  }

  /// Waits up to `seconds` for i3lock to exit; its status, or nil when it still runs.
  func waitForExit(seconds: Double) throws -> Int32? {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
      if let status = exitStatus() { return status }
      usleep(Self.poll)
    }
    return exitStatus()
  }

  /// True while /usr/bin/i3lock runs for the user.
  var isRunning: Bool { userProcesses().contains { executable(of: $0) == GraphicalLockerEnvironment.i3lock } }

  /// Waits up to `seconds` until no helper runs for the user; false if one still does. The helper is known by its
  /// command name in /proc/PID/status: it makes itself non-dumpable, and where root lacks CAP_SYS_PTRACE (a
  /// container) its /proc/PID/exe cannot be read.
  func helperEnded(within seconds: Double) -> Bool {
    within(seconds: seconds) {
      !self.userProcesses().contains { pid in
        ((try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? "").hasPrefix("Name:\tlocalauth-helpe")
      }
    }
  }

  /// Polls `done` for up to `seconds`; whether it came true.
  func within(seconds: Double, _ done: () -> Bool) -> Bool {
    (try? wait("a condition", seconds: seconds, done)) != nil
  }

  private func wait(_ what: String, seconds: Double, _ done: () -> Bool) throws {
    let end = Date().addingTimeInterval(seconds)
    while !done() {
      guard Date() < end else { throw SandboxError.setup("waited \(Int(seconds)) s for \(what)") }
      usleep(Self.poll)
    }
  }

  /// Ends every process of the test user (i3lock, its shell, the helper, Xvfb): SIGTERM, then SIGKILL after 5 s.
  func stop() {
    for pid in userProcesses() { kill(pid, SIGTERM) }
    if (try? wait("the user's processes to end", seconds: 5) { self.userProcesses().isEmpty }) != nil { return }
    for pid in userProcesses() { kill(pid, SIGKILL) }
    _ = try? wait("the user's processes to end", seconds: 5) { self.userProcesses().isEmpty }
  }

  /// The processes (not zombies) whose real uid is the test user's: every one was started by this test.
  func userProcesses() -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { pid_t($0) }.filter { pid in
      let lines = ((try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? "").split(separator: "\n")
      guard let uid = lines.first(where: { $0.hasPrefix("Uid:") }), let state = lines.first(where: { $0.hasPrefix("State:") })
      else { return false }
      return uid.split(separator: "\t").dropFirst().first == Substring("\(sandbox.uid)") && !state.contains("Z")
    }
  }

  private func executable(of pid: pid_t) -> String? {
    try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
  }
}
