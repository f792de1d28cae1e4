import LocalAuthCore
import LocalAuthTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The fprintd world of figure 8: the bus, the polkit mock, fprintd, the feeder, and the libsystemd check.
extension FprintdBench {
  // MARK: The world

  /// The bus, the polkit mock and fprintd, each waited for.
  func startWorld(_ world: WorldProcesses) throws {
    let config = PrivateSystemBus.configuration(socket: busSocket)
    try writeFile(folder + "/bus.conf", config, mode: 0o644)
    let bus = try world.start(
      "dbus-daemon", [Self.dbusDaemon, "--config-file=" + folder + "/bus.conf", "--nofork", "--nopidfile"],
      environment: Spawn.baseEnvironment, log: folder + "/bus.log")
    try waitUntil("the private bus answers", bus) {
      gdbus(["call", "--system", "-d", "org.freedesktop.DBus", "-o", "/org/freedesktop/DBus", "-m", "org.freedesktop.DBus.GetId"]).ok
    }
    let polkit = try world.start(
      "the polkitd mock", [Self.python, "-m", "dbusmock", "--system", "--template", "polkitd"], environment: clientEnvironment,
      log: folder + "/polkit.log")
    // AllowUnknown: every action is granted (the real polkitd needs logind).
    try waitUntil("the polkit mock answers", polkit) {
      gdbus([
        "call", "--system", "-d", "org.freedesktop.PolicyKit1", "-o", "/org/freedesktop/PolicyKit1/Authority", "-m",
        "org.freedesktop.DBus.Mock.AllowUnknown", "true",
      ]).ok
    }
    let daemon = try world.start(
      "fprintd", [Self.fprintd, "-t"],
      environment: clientEnvironment + [
        "FP_VIRTUAL_DEVICE=" + deviceSocket, "FP_DRIVERS_WHITELIST=virtual_device", "STATE_DIRECTORY=" + printsDir,
        "RUNTIME_DIRECTORY=" + folder + "/run",
      ], log: folder + "/fprintd.log")
    try waitUntil("fprintd has a device", daemon) {
      let answer = gdbus([
        "call", "--system", "-d", "net.reactivated.Fprint", "-o", "/net/reactivated/Fprint/Manager", "-m",
        "net.reactivated.Fprint.Manager.GetDefaultDevice",
      ])
      return answer.ok && answer.output.contains("/net/reactivated/Fprint/Device/")
    }
  }

  /// gdbus on the private bus (use `--system`): exit 0, and its output.
  func gdbus(_ arguments: [String]) -> (ok: Bool, output: String) {
    let output = folder + "/gdbus.out"
    unlink(output)
    let run = Spawn.run([Self.gdbusPath] + arguments + ["--timeout", "5"], environment: clientEnvironment, logPath: output)
    return (run.exitCode == 0, readText(output) ?? "")
  }

  /// Polls `check` every 50 ms until it holds; fails when `process` exits or after `timeout` seconds.
  func waitUntil(_ what: String, _ process: BackgroundProcess, timeout: Double = 20, _ check: () -> Bool) throws {
    let deadline = monotonicSeconds() + timeout
    while !check() {
      if process.hasExited() { throw SetupError("\(process.name) exited while starting (see \(process.log)).") }
      if monotonicSeconds() > deadline { throw SetupError("Timed out waiting until \(what) (see \(process.log)).") }
      usleep(50_000)
    }
  }

  /// A finger (Tests/scripts/fprintd-world.py feed), returned once it prints READY (its signal match is in place).
  func feeder(
    _ world: WorldProcesses, _ commands: [String], enroll: Bool = false, repeatLast: Bool = false, log: String
  ) throws -> BackgroundProcess {
    guard let helper else { throw SetupError("Tests/scripts/fprintd-world.py was not found.") }
    var argv = [Self.python, helper, "feed", "--bus", busAddress, "--socket", deviceSocket, "--timeout", "20"]
    if enroll { argv.append("--enroll") }
    if repeatLast { argv.append("--repeat-last") }
    let process = try world.start("the feeder", argv + ["--"] + commands, environment: clientEnvironment, log: log)
    let deadline = monotonicSeconds() + 10
    while !(readText(log) ?? "").split(separator: "\n").contains("READY") {
      if process.hasExited() || monotonicSeconds() > deadline {
        process.stop()
        throw SetupError("The feeder did not get ready (see \(log)).")
      }
      usleep(2_000)
    }
    return process
  }

  // MARK: libsystemd on the other paths

  /// Whether pamtester maps libsystemd during a run on the simulated path (waiting for a touch that never comes),
  /// on the passcode path (sensor=none, waiting for the passcode) and, as the control, on the fprintd path (waiting
  /// half a second for the scan). nil where the run never showed the module in its maps.
  func libsystemdCheck(_ world: WorldProcesses) throws -> (simulated: Bool?, passcode: Bool?, fprintd: Bool?) {
    let state = try BenchState(
      root: folder + "/state-sim", user: user.name, modality: .touchID, items: ["right-index"], passcode: passcode, cost: cost)
    try paths.writeService("fp-sim", "\(paths.module) conf=\(paths.conf) state_dir=\(state.root) timeout=1")
    try paths.writeService("fp-passcode", "\(paths.module) conf=\(paths.conf) state_dir=\(state.root) sensor=none")
    // The reboot rule asks the passcode first; after it, the simulated path waits for a touch (1 s, none comes).
    let secretFile = folder + "/secret.in"
    guard pamtester("fp-sim", stdin: secretFile).exitCode == 0 else {
      throw SetupError("The setup passcode authentication on the simulated path failed (see \(paths.log)).")
    }
    let simulated = try sampleMaps(world, "fp-sim", stdin: "/dev/null", forAtMost: 3)

    // The passcode path: pamtester blocks reading the passcode from a FIFO that the bench holds open, then gets EOF.
    let fifo = folder + "/passcode.fifo"
    guard mkfifo(fifo, 0o600) == 0 else { throw SetupError("Cannot create \(fifo): \(errnoDescription(errno)).") }
    let writer = open(fifo, O_RDWR | O_CLOEXEC)
    guard writer >= 0 else { throw SetupError("Cannot open \(fifo): \(errnoDescription(errno)).") }
    let passcodePath: Bool?
    do {
      defer { close(writer) }
      passcodePath = try sampleMaps(world, "fp-passcode", stdin: fifo, forAtMost: 0.5)
    }

    // The control: the fprintd path, the scan half a second after the device is armed.
    let feedLog = folder + "/feed.log"
    let finger = try feeder(world, ["PAUSE 500", "SCAN print-A"], log: feedLog)
    defer { finger.stop() }
    let fprintdPath = try sampleMaps(world, "fp-ours", stdin: "/dev/null", forAtMost: 5)
    return (simulated, passcodePath, fprintdPath)
  }

  /// Starts pamtester on `service` and reads its /proc/PID/maps every 10 ms for at most `seconds` (then ends it, or
  /// lets it be ended by the caller closing its stdin): true if libsystemd was mapped at any sample, nil if
  /// pam_localauth.so never was (the check saw nothing of the module).
  func sampleMaps(_ world: WorldProcesses, _ service: String, stdin: String, forAtMost seconds: Double) throws -> Bool? {
    let run = try world.start(
      "pamtester", [pamtester, service, user.name, "authenticate"], environment: pamEnvironment, log: folder + "/maps-run.log",
      stdinPath: stdin)
    defer { run.stop() }
    var module = false
    var libsystemd = false
    let deadline = monotonicSeconds() + seconds
    while !run.hasExited(), monotonicSeconds() < deadline {
      if let maps = readText("/proc/\(run.pid)/maps") {
        module = module || maps.contains("pam_localauth.so")
        libsystemd = libsystemd || maps.contains("libsystemd.so")
      }
      usleep(10_000)
    }
    return module ? libsystemd : nil
  }
}
