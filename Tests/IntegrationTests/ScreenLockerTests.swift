import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a real screen locker needs here: the helper (and mount namespaces, see `Artifacts.helperAvailable`),
/// Debian's vlock and tmux, and root (to create the user, copy the programs and bind the folders).
enum ScreenLockerEnvironment {
  /// Debian's vlock-main (setuid root there; the tests run a copy without the bit).
  static let vlockMain = "/usr/sbin/vlock-main"
  /// tmux, which gives vlock a terminal the tests can type into and read.
  static let tmux = "/usr/bin/tmux"

  static var capable: Bool {
    getuid() == 0 && Artifacts.helperAvailable && access(vlockMain, X_OK) == 0 && access(tmux, X_OK) == 0
  }

  static let skipMessage: Comment =
    "Needs root, LOCALAUTH_HELPER naming the built localauth-helper, mount namespaces, /usr/sbin/vlock-main (package vlock) and /usr/bin/tmux."
}

extension RealPAM {
  /// A real screen locker: Debian's vlock, run inside tmux by the unprivileged test user from a copy of vlock-main
  /// without its setuid bit, so pam_localauth must go through the setuid helper. The PAM service `vlock` is a copy
  /// of /etc/pam.d with a `vlock` file holding the module, bound over /etc/pam.d in a private mount namespace,
  /// together with HelperWorld's /etc/security (the helper reads only the system's localauth.conf).
  @Suite("Screen locker: vlock as an unprivileged user", .enabled(if: ScreenLockerEnvironment.capable, ScreenLockerEnvironment.skipMessage))
  struct ScreenLockerTests {
    /// The module's finger prompt as vlock shows it (vlock writes "USER's " before authenticating). The helper names
    /// its caller from the kernel: the sandbox's copy of vlock-main is not in a system folder, so its full path.
    static func fingerPrompt(_ locker: VlockInTmux) -> String {
      "Place your finger on the sensor to authenticate for \(String(locker.vlock.prefix(64)))."
    }
    static let passcodePrompt = "Enter Passcode:"

    @Test("vlock unlocks with one touch of the user's finger; no passcode is asked")
    func unlockByFinger() throws {
      try withSandbox { s in
        try Setups.ready(s)
        let locker = try VlockInTmux(s)
        defer { locker.stop() }
        try s.touch()
        try locker.start()
        let pane = try s.presentingTouches {
          try locker.pressEnter()
          return try locker.waitForPane("vlock to exit") { $0.contains("VLOCK_EXIT=") }
        }
        #expect(pane.contains("VLOCK_EXIT=0"), "\(pane)")
        #expect(locker.helperEnded(), "localauth-helper still runs after vlock exited")
        #expect(pane.contains("\(s.user)'s \(Self.fingerPrompt(locker))"), "\(pane)")
        #expect(!pane.contains(Self.passcodePrompt), "\(pane)")
        #expect(!pane.contains("Try again."), "\(pane)")
        #expect(!pane.contains("Authentication failure"), "\(pane)")
      }
    }

    @Test("vlock unlocks by passcode after three wrong fingers")
    func passcodeAfterThreeWrongFingers() throws {
      try withSandbox { s in
        try Setups.ready(s)
        let locker = try VlockInTmux(s)
        defer { locker.stop() }
        for _ in 0..<3 { try s.touch(from: "intruder") }
        try locker.start()
        let asked = try s.presentingTouches {
          try locker.pressEnter()
          return try locker.waitForPane("the passcode prompt after the wrong fingers") {
            $0.contains(Self.passcodePrompt) || $0.contains("VLOCK_EXIT=") || $0.contains("vlock: ")
          }
        }
        #expect(asked.contains("\(s.user)'s \(Self.fingerPrompt(locker))"), "\(asked)")
        #expect(VlockInTmux.count("Try again.", in: asked) == 2, "\(asked)")
        #expect(VlockInTmux.count(Self.passcodePrompt, in: asked) == 1, "\(asked)")
        #expect(!asked.contains("VLOCK_EXIT="), "\(asked)")
        try #require(asked.contains(Self.passcodePrompt), "\(asked)")
        // The order the user saw: the finger prompt, the two retries, then the passcode.
        let finger = try #require(asked.range(of: Self.fingerPrompt(locker)))
        let retry = try #require(asked.range(of: "Try again.", options: .backwards))
        let passcode = try #require(asked.range(of: Self.passcodePrompt))
        #expect(finger.upperBound <= retry.lowerBound && retry.upperBound <= passcode.lowerBound, "\(asked)")

        try locker.type("1234")
        let pane = try locker.waitForPane("vlock to exit") { $0.contains("VLOCK_EXIT=") }
        #expect(pane.contains("VLOCK_EXIT=0"), "\(pane)")
        #expect(locker.helperEnded(), "localauth-helper still runs after vlock exited")
        #expect(!pane.contains("Passcode: 1234"), "the passcode was echoed: \(pane)")
        #expect(!pane.contains("Authentication failure"), "\(pane)")
      }
    }

    @Test("vlock stays locked after a wrong passcode, and the right one then unlocks it")
    func wrongPasscodeKeepsItLocked() throws {
      try withSandbox { s in
        try Setups.passcodeOnly(s)
        let locker = try VlockInTmux(s)
        defer { locker.stop() }
        try locker.start()
        try locker.pressEnter()
        try locker.waitForPane("the passcode prompt") { $0.contains(Self.passcodePrompt) }
        try locker.type("0000")
        // vlock reports the failure, pauses, tries root (whom the helper does not serve: no prompt, an immediate
        // failure; should a prompt for root ever appear, Enter skips it), pauses again and locks anew: wait until
        // it shows its lock message a second time, ready for another round.
        var skippedRoot = false
        let failed = try locker.waitForPane("vlock to lock again after the wrong passcode") { pane in
          if !skippedRoot, VlockInTmux.lastLine(of: pane).hasPrefix("root's "), VlockInTmux.lastLine(of: pane).hasSuffix(":") {
            skippedRoot = true
            try? locker.pressEnter()
          }
          return VlockInTmux.count("LOCKED", in: pane) >= 2 || pane.contains("VLOCK_EXIT=")
        }
        #expect(failed.contains("Wrong passcode."), "\(failed)")
        #expect(failed.contains("vlock: Authentication failure"), "\(failed)")
        #expect(!failed.contains("VLOCK_EXIT="), "\(failed)")
        #expect(!failed.contains("Passcode: 0000"), "the passcode was echoed: \(failed)")
        #expect(locker.vlockIsRunning, "vlock-main is no longer running: \(failed)")
        #expect(locker.helperEnded(), "the failed round's localauth-helper still runs")

        // Still locked: the right passcode in the next round unlocks it.
        try locker.pressEnter()
        try locker.waitForPane("the second passcode prompt") { VlockInTmux.count(Self.passcodePrompt, in: $0) >= 2 }
        try locker.type("1234")
        let pane = try locker.waitForPane("vlock to exit") { $0.contains("VLOCK_EXIT=") }
        #expect(pane.contains("VLOCK_EXIT=0"), "\(pane)")
        #expect(locker.helperEnded(), "localauth-helper still runs after vlock exited")
        #expect(VlockInTmux.count("Wrong passcode.", in: pane) == 1, "\(pane)")
        // vlock's own count of the failed round, shown on success.
        #expect(pane.contains("1 failed authentication try."), "\(pane)")
      }
    }
  }
}

/// vlock-main (a copy without the setuid bit) run by the sandbox's user as the only program of a tmux session,
/// inside a private mount namespace where /etc/security is HelperWorld's copy and /etc/pam.d holds a `vlock`
/// service with the module. The tmux server lives in that namespace; root drives it from outside through its
/// socket (`send-keys`, `capture-pane`). `stop()` ends the server and every process the user still runs.
final class VlockInTmux {
  let sandbox: Sandbox
  let world: HelperWorld
  /// The copy of vlock-main (root, 0755).
  let vlock: String
  /// The copy of /etc/pam.d with the `vlock` service.
  let pamDir: String
  /// The user's 0700 folder holding the tmux socket.
  let socketDir: String
  var socket: String { socketDir + "/tmux.sock" }
  /// The polling period and the default deadline of every wait.
  static let poll: useconds_t = 50_000
  static let deadline: Double = 30

  init(_ sandbox: Sandbox, extraConfig: [String] = []) throws {
    self.sandbox = sandbox
    // The helper's own configuration: a sensor wait long enough for the toucher's touches.
    world = try HelperWorld(sandbox, extraConfig: ["timeout=10"] + extraConfig)
    vlock = sandbox.root + "/bin/vlock-main"
    pamDir = sandbox.root + "/etc-pam.d"
    socketDir = sandbox.root + "/tmux"
    try Run.checked("/usr/bin/install", ["-o", "root", "-g", "root", "-m", "0755", ScreenLockerEnvironment.vlockMain, vlock])
    try Run.checked("/bin/cp", ["-a", "/etc/pam.d", pamDir])
    let service = [world.moduleLine(), "account required pam_permit.so"].joined(separator: "\n") + "\n"
    try service.write(toFile: pamDir + "/vlock", atomically: true, encoding: .utf8)
    chmod(pamDir + "/vlock", 0o644)
    guard mkdir(socketDir, 0o700) == 0, chown(socketDir, sandbox.uid, world.gid) == 0 else {
      throw SandboxError.setup("cannot make \(socketDir) for \(sandbox.user)")
    }
  }

  /// Starts the tmux server and its session running vlock-main, waits for vlock's lock message, and checks that
  /// vlock-main runs with none of root's ids.
  func start() throws {
    // The tmux server outlives this command, so it must not inherit what the test process hands down: any
    // descriptor but 0 to 2 (Foundation's Process learns that its child ended when a socket it passes on closes,
    // so a copy kept by the server would hang the run), nor the test thread's signal mask (nearly every signal
    // blocked: the server would never act on the SIGTERM that `kill-server` sends it). `env --default-signal`
    // unblocks every signal and restores the default actions.
    let script = "for fd in /proc/$$/fd/*; do fd=${fd##*/}; if [ \"$fd\" -gt 2 ]; then eval \"exec $fd>&-\"; fi; done; "
      + "mount --bind \"$0\" /etc/security && mount --bind \"$1\" /etc/pam.d && "
      + "/usr/bin/setpriv --reuid \"$2\" --regid \"$3\" --clear-groups /usr/bin/env --default-signal -i HOME=/ USER=\"$4\" "
      + "LOGNAME=\"$4\" SHELL=/bin/sh PATH=/usr/bin:/bin TERM=xterm LANG=C "
      + "/usr/bin/tmux -f /dev/null -S \"$5\" new-session -d -s lock -x 100 -y 30 "
      + "\"VLOCK_CURRENT_MESSAGE=LOCKED $6; echo VLOCK_EXIT=\\$?; sleep 300\" && "
      // Someone watches the pane (docs/RULES.md, "Intent"): the user's tmux client attached on a terminal root's
      // script holds, as a console would show it. It ends with the server (kill-server at the end).
      + "exec /usr/bin/setsid -f /usr/bin/script -qfc \"exec /usr/bin/setpriv --reuid $2 --regid $3 --clear-groups "
      + "/usr/bin/env --default-signal -i HOME=/ USER=$4 LOGNAME=$4 PATH=/usr/bin:/bin TERM=xterm LANG=C "
      + "/usr/bin/tmux -f /dev/null -S $5 attach -t lock\" /dev/null </dev/null >/dev/null 2>&1"
    let run = try Run.program(
      "/usr/bin/unshare",
      ["--mount", "--propagation", "private", "/bin/bash", "-c", script, world.etcSecurity, pamDir, "\(sandbox.uid)",
        "\(world.gid)", sandbox.user, socket, vlock], timeout: Self.deadline)
    guard run.status == 0 else {
      throw SandboxError.setup("starting tmux failed (\(run.status)): \(run.stdout)\(run.stderr)")
    }
    try waitForPane("vlock's lock message") { $0.contains("LOCKED") }
    let pids = userProcesses().filter { executable(of: $0) == vlock }
    #expect(pids.count == 1, "vlock-main processes: \(pids)")
    for pid in pids {
      let ids = status(of: pid).filter { $0.hasPrefix("Uid:") || $0.hasPrefix("Gid:") }
      #expect(
        ids == ["Uid:\t\(sandbox.uid)\t\(sandbox.uid)\t\(sandbox.uid)\t\(sandbox.uid)", "Gid:\t\(world.gid)\t\(world.gid)\t\(world.gid)\t\(world.gid)"],
        "vlock-main is not an unprivileged caller: \(ids)")
    }
  }

  /// Runs a tmux client on the session's socket (as root: tmux lets root in).
  @discardableResult
  func tmux(_ arguments: [String]) throws -> ProcessRun {
    let run = try Run.program(ScreenLockerEnvironment.tmux, ["-S", socket] + arguments, timeout: 10)
    guard run.status == 0 else { throw SandboxError.setup("tmux \(arguments.joined(separator: " ")) failed: \(run.stderr)") }
    return run
  }

  func pressEnter() throws { try tmux(["send-keys", "-t", "lock", "Enter"]) }

  /// Types `text` literally, then Enter.
  func type(_ text: String) throws {
    try tmux(["send-keys", "-t", "lock", "-l", text])
    try pressEnter()
  }

  /// The pane's text with its history.
  func pane() throws -> String {
    try tmux(["capture-pane", "-p", "-J", "-t", "lock", "-S", "-500"]).stdout
  }

  /// Polls the pane until `done` holds, and returns it; throws, with the pane, at the deadline.
  @discardableResult
  func waitForPane(_ what: String, timeout: Double = deadline, _ done: (String) -> Bool) throws -> String {
    let end = Date().addingTimeInterval(timeout)
    while true {
      let text = try pane()
      if done(text) { return Self.trimmed(text) }
      guard Date() < end else {
        throw SandboxError.setup("waited \(Int(timeout)) s for \(what); the pane shows:\n\(Self.trimmed(text))")
      }
      usleep(Self.poll)
    }
  }

  /// Waits (at most 10 s) until no copy of the helper runs for the user; false if one still does. A helper is
  /// known by its name in /proc/PID/status as well as by its executable: the link of a setuid process, or of one
  /// run from a path other than `world.helper`, need not name that file.
  func helperEnded() -> Bool {
    let end = Date().addingTimeInterval(10)
    func isHelper(_ pid: pid_t) -> Bool {
      executable(of: pid) == world.helper || status(of: pid).first == "Name:\tlocalauth-helpe"
    }
    while userProcesses().contains(where: isHelper) {
      guard Date() < end else { return false }
      usleep(Self.poll)
    }
    return true
  }

  /// True while the copy of vlock-main runs.
  var vlockIsRunning: Bool { userProcesses().contains { executable(of: $0) == vlock } }

  /// Ends the tmux server, then waits (bounded) for every process of the test user (the pane's shell, vlock,
  /// the helper it ran) to end; any still running after 10 s is reported and killed.
  func stop() {
    _ = try? Run.program(ScreenLockerEnvironment.tmux, ["-S", socket, "kill-server"], timeout: 10)
    if waitForNoUserProcesses(seconds: 10) { return }
    let left = userProcesses()
    Issue.record(
      "still running 10 s after tmux kill-server: \(left.map { "\($0) \(executable(of: $0) ?? "?")" }.joined(separator: ", "))")
    for pid in left { kill(pid, SIGKILL) }
    _ = waitForNoUserProcesses(seconds: 10)
  }

  private func waitForNoUserProcesses(seconds: Double) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while !userProcesses().isEmpty {
      guard Date() < end else { return false }
      usleep(Self.poll)
    }
    return true
  }

  /// The processes (not zombies) whose real uid is the test user's: every one was started by this test.
  func userProcesses() -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { pid_t($0) }.filter { pid in
      let lines = status(of: pid)
      guard let uid = lines.first(where: { $0.hasPrefix("Uid:") }), let state = lines.first(where: { $0.hasPrefix("State:") })
      else { return false }
      return uid.split(separator: "\t").dropFirst().first == Substring("\(sandbox.uid)") && !state.contains("Z")
    }
  }

  private func status(of pid: pid_t) -> [String] {
    ((try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  private func executable(of pid: pid_t) -> String? {
    try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
  }

  /// The pane without its trailing blank lines.
  static func trimmed(_ text: String) -> String {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
    return lines.joined(separator: "\n")
  }

  /// The pane's last line that is not blank, without trailing blanks.
  static func lastLine(of text: String) -> String {
    let line = trimmed(text).split(separator: "\n").last.map(String.init) ?? ""
    return String(line.reversed().drop { $0 == " " }.reversed())
  }

  /// How many times `needle` occurs in `text`.
  static func count(_ needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
  }
}
