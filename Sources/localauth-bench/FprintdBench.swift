import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// Item 8: a real reader. Whole `pamtester SERVICE USER authenticate` processes through pam_wrapper, pam_localauth
/// with `sensor=fprintd` against pam_fprintd, both on libfprint's virtual reader behind a private fprintd, each fed
/// one matching scan the same way (scripts/fprintd-world.py feed, started and READY before the clock starts).
///
/// The world is the one Tests/IntegrationTests/Support/FprintdWorld.swift builds for the tests, in build/bench-work/fprintd:
/// a dbus-daemon with a system-type configuration on a private socket, python3-dbusmock's polkitd template granting
/// everything, and `fprintd -t` with only the virtual_device driver and its own STATE_DIRECTORY. Every daemon is a
/// child of the bench, ended by its pid with SIGKILL (and reaped) when the figure ends, fails, or the bench is
/// interrupted.
///
/// The other half of the target, no cost on the simulated and passcode paths without sensor=fprintd, is figures 1
/// and 2; this figure records whether pamtester on those paths maps libsystemd (it should not: the module opens it
/// on first use by sensor=fprintd), with the fprintd path as the control that the check sees it.
struct FprintdBench {
  let paths: BenchPaths
  let user: BenchUser
  let passcode: String
  let cost: UInt
  let pamtester: String
  let counts: BenchCounts

  static let fprintd = "/usr/libexec/fprintd"
  static let dbusDaemon = "/usr/bin/dbus-daemon"
  static let gdbusPath = "/usr/bin/gdbus"
  static let enroll = "/usr/bin/fprintd-enroll"
  /// Debian's interpreter, which has python3-dbusmock (`python3` on PATH may be another one).
  static let python = "/usr/bin/python3"

  /// The world's folder (root's, 0700), inside the scratch folder, which an interrupted run removes too.
  var folder: String { paths.work + "/fprintd" }
  var busSocket: String { folder + "/bus.sock" }
  var busAddress: String { "unix:path=" + busSocket }
  var deviceSocket: String { folder + "/vdev.sock" }
  /// fprintd's STATE_DIRECTORY: the prints, `<user>/virtual_device/0/<finger>`; our fprint_dir=.
  var printsDir: String { folder + "/prints" }
  var clientEnvironment: [String] { Spawn.baseEnvironment + ["DBUS_SYSTEM_BUS_ADDRESS=" + busAddress] }
  /// pam_wrapper's variables and the private bus (pamtester is not setuid, so sd-bus honours it).
  var pamEnvironment: [String] { paths.wrapperEnvironment + ["DBUS_SYSTEM_BUS_ADDRESS=" + busAddress] }

  /// scripts/fprintd-world.py, next to the build folder or under the current folder.
  var helper: String? {
    var parent = paths.build
    while parent.count > 1, parent.hasSuffix("/") { parent.removeLast() }
    if let slash = parent.lastIndex(of: "/") { parent = String(parent[..<slash]) }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
    let current = getcwd(&buffer, buffer.count) != nil
      ? String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "."
    return [parent + "/scripts/fprintd-world.py", current + "/scripts/fprintd-world.py"].first { (path: String) in access(path, R_OK) == 0 }
  }

  /// Debian's pam_fprintd.
  var pamFprintd: String? {
    [paths.securityDir + "/pam_fprintd.so", "/lib/x86_64-linux-gnu/security/pam_fprintd.so", "/usr/lib/x86_64-linux-gnu/security/pam_fprintd.so",
      "/lib/aarch64-linux-gnu/security/pam_fprintd.so", "/usr/lib/aarch64-linux-gnu/security/pam_fprintd.so"]
      .first { (path: String) in access(path, R_OK) == 0 }
  }

  func run(into report: inout Report) throws {
    let missing = [Self.fprintd, Self.dbusDaemon, Self.gdbusPath, Self.enroll, Self.python].filter { (path: String) in access(path, X_OK) != 0 }
    guard missing.isEmpty else {
      throw SetupError("\(missing.joined(separator: ", ")) not installed (make deps installs fprintd, dbus, libglib2.0-bin and python3).")
    }
    guard let pamFprintd else { throw SetupError("pam_fprintd.so is not installed (libpam-fprintd; make deps installs it).") }
    guard helper != nil else { throw SetupError("scripts/fprintd-world.py was not found next to \(paths.build).") }
    guard Spawn.setup([Self.python, "-c", "import dbusmock, dbus, dbus.mainloop.glib, gi.repository.GLib"]) else {
      throw SetupError("python3-dbusmock (with python3-dbus and python3-gi) is not installed for \(Self.python) (make deps installs it).")
    }
    guard busSocket.utf8.count < 100 else { throw SetupError("\(folder) is too long a path for a socket.") }

    Spawn.setup(["/bin/rm", "-rf", folder])
    WorldProcesses.arm()
    let world = WorldProcesses()
    defer {
      world.stopAll()
      WorldProcesses.disarm()
      Spawn.setup(["/bin/rm", "-rf", folder])
    }
    for (path, mode) in [(folder, mode_t(0o700)), (printsDir, 0o700), (folder + "/run", 0o700)] {
      guard mkdir(path, mode) == 0 else { throw SetupError("Cannot create \(path): \(errnoDescription(errno)).") }
    }
    let started = monotonicSeconds()
    try startWorld(world)
    let startup = monotonicSeconds() - started

    // Enrolment: fprintd-enroll for the bench user, the device scanning print-A at every stage.
    let enrolStart = monotonicSeconds()
    let enrolFeeder = try feeder(world, ["SCAN print-A"], enroll: true, repeatLast: true, log: folder + "/enroll-feed.log")
    let enrolOut = folder + "/enroll.out"
    let enrolled = Spawn.run([Self.enroll, "-f", "right-index-finger", user.name], environment: clientEnvironment, logPath: enrolOut)
    _ = enrolFeeder.wait(timeout: 5)
    enrolFeeder.stop()
    guard enrolled.exitCode == 0, (readText(enrolOut) ?? "").contains("enroll-completed") else {
      throw SetupError("fprintd-enroll -f right-index-finger \(user.name) failed (exit \(enrolled.exitCode); see \(enrolOut)).")
    }
    let enrolment = monotonicSeconds() - enrolStart

    // Our module: the bench user's passcode in a root-owned state folder; pam_fprintd: one try, as one scan is fed.
    let ours = try BenchState(root: folder + "/state-ours", user: user.name, modality: .touchID, items: [], passcode: passcode, cost: cost)
    try paths.writeService("fp-ours", "\(paths.module) conf=\(paths.conf) state_dir=\(ours.root) sensor=fprintd fprint_dir=\(printsDir) timeout=10")
    try paths.writeService("fp-fprintd", "\(pamFprintd) max-tries=1 timeout=10")
    let secretFile = folder + "/secret.in"
    try writeFile(secretFile, passcode + "\n")
    // The prints are new to the record (enrollment-change rule) and this boot has had no passcode (reboot rule):
    // the first authentication asks the passcode, as a user's first one after enrolling would.
    let first = pamtester("fp-ours", stdin: secretFile)
    guard first.exitCode == 0 else {
      throw SetupError("The setup passcode authentication with sensor=fprintd failed (exit \(first.exitCode); see \(paths.log)).")
    }

    // The rounds: each side once per round, the order alternating; a feeder per run, READY before the clock starts.
    let services = ["fp-ours", "fp-fprintd"]
    var samples = PairedSamples()
    var lastFailure = ""
    let warmUp = 2
    for round in 0..<(warmUp + counts.passcodePairs) {
      var seconds = [0.0, 0.0]
      var ok = true
      for step in 0..<2 {
        let k = (round + step) % 2
        let feedLog = folder + "/feed.log"
        guard let finger = try? feeder(world, ["SCAN print-A"], log: feedLog) else {
          ok = false
          lastFailure = "the feeder did not get ready (\(feedLog))"
          continue
        }
        let run = pamtester(services[k])
        let fed = run.exitCode == 0 ? finger.wait(timeout: 5) : nil
        finger.stop()
        let matched = (readText(feedLog) ?? "").contains("SIGNAL VerifyStatus verify-match true")
        if run.exitCode != 0 || fed != 0 || !matched {
          ok = false
          lastFailure = "\(services[k]): pamtester exit \(run.exitCode), feeder exit \(fed.map(String.init) ?? "killed"), match \(matched)"
        }
        seconds[k] = run.seconds
      }
      guard ok else {
        samples.failures += 1
        continue
      }
      if round >= warmUp { samples.add(subject: seconds[0], reference: seconds[1]) }
    }
    guard !samples.subject.isEmpty else { throw SetupError("Every round failed; the last: \(lastFailure) (see \(paths.log)).") }

    // A check that cannot run leaves its entries null; the timing stands.
    let libsystemd = (try? libsystemdCheck(world)) ?? (simulated: nil, passcode: nil, fprintd: nil)

    let a = Summary(samples.subject)
    let b = Summary(samples.reference)
    let ratio = Summary(samples.ratios)
    let extra = Summary(samples.differences)
    let ms = { (s: Summary?) in s.map { fixed($0.median * 1e3, 1) } ?? "n/a" }
    let mapped = { (value: Bool?) in value.map { $0 ? "maps" : "does not map" } ?? "was not checked for" }
    report.notes.append(
      "Item 8 runs a private fprintd (`fprintd -t`, libfprint's virtual_device driver only) on a private dbus-daemon with a "
        + "system-type configuration and python3-dbusmock's polkitd template (AllowUnknown), as the fprintd tests do; the bench "
        + "user's right index finger is enrolled with fprintd-enroll (print-A). Each run gets its own finger, "
        + "`scripts/fprintd-world.py feed SCAN print-A`, started and READY before the clock starts: it sends the scan when fprintd "
        + "emits VerifyFingerSelected, so both sides pay the same D-Bus round trips for the scan. pamtester gets "
        + "DBUS_SYSTEM_BUS_ADDRESS besides pam_wrapper's variables. Ours: `sensor=fprintd fprint_dir=<fprintd's state> timeout=10` "
        + "with a state folder under build/bench-work, after one passcode authentication (new prints and a new boot ask it once); "
        + "pam_fprintd: `max-tries=1 timeout=10`. The libsystemd check reads /proc/PID/maps of pamtester every 10 ms during a run.")
    report.figures.append(
      Figure(
        id: "8", name: "Whole process, fprintd path vs pam_fprintd (virtual reader, one matching scan each)",
        ours: describe(a, scale: 1e3, unit: "ms"), reference: describe(b, scale: 1e3, unit: "ms"),
        comparison: describeRatio(ratio), target: "≤ 1.1×", verdict: verdict(ratio.map { $0.median <= 1.1 }),
        meaning: "With a real fingerprint reader, a sudo through pam_localauth (sensor=fprintd) takes \(ms(a)) ms from start to "
          + "finish against \(ms(b)) ms through pam_fprintd, for the same single matching scan: Apple's rules (the enrollment "
          + "check, the failure count and the record written after the match) "
          + ((extra?.median ?? 0) > 0 ? "add \(ms(extra)) ms" : "add nothing measurable (median difference \(ms(extra)) ms)")
          + ". Without sensor=fprintd nothing "
          + "changes: libsystemd is opened only on first use by sensor=fprintd, so the simulated and passcode paths cost what "
          + "figures 1 and 2 show (pamtester on the simulated path \(mapped(libsystemd.simulated)) libsystemd, on the passcode "
          + "path \(mapped(libsystemd.passcode)) it, on the fprintd path \(mapped(libsystemd.fprintd)) it).",
        json: .object([
          ("unit", .string("ms")), ("subject", a?.json(scale: 1e3) ?? .null), ("reference", b?.json(scale: 1e3) ?? .null),
          ("ratio", ratio?.json() ?? .null), ("difference_ms", extra?.json(scale: 1e3) ?? .null),
          ("failed_rounds", .number(Double(samples.failures))), ("target_ratio", .number(1.1)),
          ("reference_module", .string(pamFprintd + " max-tries=1 timeout=10")),
          ("world_startup_s", .number(startup)), ("enrolment_s", .number(enrolment)),
          (
            "libsystemd_mapped",
            .object([
              ("simulated_path", libsystemd.simulated.map { .bool($0) } ?? .null),
              ("passcode_path", libsystemd.passcode.map { .bool($0) } ?? .null),
              ("fprintd_path_control", libsystemd.fprintd.map { .bool($0) } ?? .null),
            ])
          ),
        ])))
  }

  func pamtester(_ service: String, stdin: String = "/dev/null") -> ProcessResult {
    Spawn.run([pamtester, service, user.name, "authenticate"], environment: pamEnvironment, stdinPath: stdin, logPath: paths.log)
  }

  // MARK: The world

  /// The bus, the polkit mock and fprintd, each waited for.
  private func startWorld(_ world: WorldProcesses) throws {
    let config = """
      <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
       "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
      <busconfig>
        <type>system</type>
        <listen>unix:path=\(busSocket)</listen>
        <auth>EXTERNAL</auth>
        <policy context="default">
          <allow user="*"/>
          <allow own="*"/>
          <allow send_destination="*"/>
          <allow receive_sender="*"/>
          <allow eavesdrop="true"/>
        </policy>
      </busconfig>

      """
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
  private func gdbus(_ arguments: [String]) -> (ok: Bool, output: String) {
    let output = folder + "/gdbus.out"
    unlink(output)
    let run = Spawn.run([Self.gdbusPath] + arguments + ["--timeout", "5"], environment: clientEnvironment, logPath: output)
    return (run.exitCode == 0, readText(output) ?? "")
  }

  /// Polls `check` every 50 ms until it holds; fails when `process` exits or after `timeout` seconds.
  private func waitUntil(_ what: String, _ process: BackgroundProcess, timeout: Double = 20, _ check: () -> Bool) throws {
    let deadline = monotonicSeconds() + timeout
    while !check() {
      if process.hasExited() { throw SetupError("\(process.name) exited while starting (see \(process.log)).") }
      if monotonicSeconds() > deadline { throw SetupError("Timed out waiting until \(what) (see \(process.log)).") }
      usleep(50_000)
    }
  }

  /// A finger (scripts/fprintd-world.py feed), returned once it prints READY (its signal match is in place).
  private func feeder(
    _ world: WorldProcesses, _ commands: [String], enroll: Bool = false, repeatLast: Bool = false, log: String
  ) throws -> BackgroundProcess {
    guard let helper else { throw SetupError("scripts/fprintd-world.py was not found.") }
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
  private func libsystemdCheck(_ world: WorldProcesses) throws -> (simulated: Bool?, passcode: Bool?, fprintd: Bool?) {
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
  private func sampleMaps(_ world: WorldProcesses, _ service: String, stdin: String, forAtMost seconds: Double) throws -> Bool? {
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

/// The world's processes: started with posix_spawn (signal mask cleared, default dispositions), ended by pid.
final class WorldProcesses {
  private var started: [BackgroundProcess] = []

  /// Starts `argv` (argv[0] absolute) with exactly `environment`, output to `log`.
  func start(_ name: String, _ argv: [String], environment: [String], log: String, stdinPath: String = "/dev/null") throws -> BackgroundProcess {
    let process = try BackgroundProcess(name: name, argv, environment: environment, log: log, stdinPath: stdinPath)
    started.append(process)
    return process
  }

  /// Ends every process started, the last first (fprintd before polkit before the bus).
  func stopAll() {
    for process in started.reversed() { process.stop() }
    started = []
  }

  // MARK: Interruption

  /// Pids of running world processes, for the signal handler (fixed slots: no allocation in the handler).
  nonisolated(unsafe) static var live = [pid_t](repeating: 0, count: 32)
  nonisolated(unsafe) private static var previous: (interrupt: __sighandler_t?, terminate: __sighandler_t?)?

  /// While the figure runs, SIGINT and SIGTERM first kill the world's processes, then go to the bench's handler.
  static func arm() {
    let handler: @convention(c) (Int32) -> Void = { signal in
      for pid in WorldProcesses.live where pid > 0 { _ = kill(pid, SIGKILL) }
      let before = WorldProcesses.previous
      _ = Glibc.signal(signal, signal == SIGINT ? before?.interrupt ?? SIG_DFL : before?.terminate ?? SIG_DFL)
      _ = raise(signal)
    }
    let interrupt = signal(SIGINT, handler)
    let terminate = signal(SIGTERM, handler)
    previous = (interrupt, terminate)
  }

  /// Puts the bench's own handlers back.
  static func disarm() {
    guard let before = previous else { return }
    signal(SIGINT, before.interrupt)
    signal(SIGTERM, before.terminate)
    previous = nil
  }

  static func track(_ pid: pid_t) {
    if let slot = live.firstIndex(of: 0) { live[slot] = pid }
  }

  static func untrack(_ pid: pid_t) {
    if let slot = live.firstIndex(of: pid) { live[slot] = 0 }
  }
}

/// One child process in the background.
final class BackgroundProcess {
  let name: String
  let pid: pid_t
  let log: String
  /// The exit code (or 128 + signal) once reaped.
  private(set) var exitCode: Int32?

  init(name: String, _ argv: [String], environment: [String], log: String, stdinPath: String) throws {
    self.name = name
    self.log = log
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // A child inherits the signal mask and ignored signals: start each with none blocked and the defaults.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let cArgs = argv.map { strdup($0) } + [nil]
    let cEnv = environment.map { strdup($0) } + [nil]
    defer {
      for p in cArgs { free(p) }
      for p in cEnv { free(p) }
    }
    var child: pid_t = 0
    let spawned = posix_spawn(&child, argv[0], &actions, &attributes, cArgs, cEnv)
    guard spawned == 0 else { throw SetupError("Cannot start \(name) (\(argv[0])): \(errnoDescription(spawned)).") }
    pid = child
    WorldProcesses.track(child)
  }

  /// True once the process has ended (reaping it).
  func hasExited() -> Bool {
    if exitCode != nil { return true }
    var status: Int32 = 0
    let r = waitpid(pid, &status, WNOHANG)
    if r == 0 { return false }
    reaped(r == pid ? status : 0x7f)
    return true
  }

  /// Waits up to `timeout` seconds for the process to end by itself: its exit code, or nil if it still runs.
  func wait(timeout: Double) -> Int32? {
    let deadline = monotonicSeconds() + timeout
    while !hasExited() {
      if monotonicSeconds() > deadline { return nil }
      usleep(2_000)
    }
    return exitCode
  }

  /// SIGKILL to the process and its descendants (found before any dies), then reaps it. Safe to call twice.
  func stop() {
    guard !hasExited() else { return }
    let family = Self.descendants(of: pid) + [pid]
    for member in family { _ = kill(member, SIGKILL) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    reaped(status)
    // Descendants are not ours to reap: wait (at most 5 s) until they are gone or zombies of init.
    let deadline = monotonicSeconds() + 5
    while monotonicSeconds() < deadline, family.dropLast().contains(where: Self.alive) { usleep(5_000) }
  }

  private func reaped(_ status: Int32) {
    let signal = status & 0x7f
    exitCode = signal == 0 ? (status >> 8) & 0xff : 128 + signal
    WorldProcesses.untrack(pid)
  }

  /// The state letter and parent of `pid`, from /proc/PID/stat.
  private static func stat(_ pid: pid_t) -> (state: Substring, parent: pid_t)? {
    guard let text = readText("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 1, let parent = pid_t(fields[1]) else { return nil }
    return (fields[0], parent)
  }

  static func alive(_ pid: pid_t) -> Bool {
    guard let state = stat(pid)?.state else { return false }
    return state != "Z" && state != "X"
  }

  /// Every descendant of `pid`, from /proc.
  static func descendants(of pid: pid_t) -> [pid_t] {
    var children: [pid_t: [pid_t]] = [:]
    guard let directory = opendir("/proc") else { return [] }
    defer { closedir(directory) }
    while let entry = readdir(directory) {
      let name = withUnsafePointer(to: &entry.pointee.d_name) {
        String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
      }
      guard let child = pid_t(name), let parent = stat(child)?.parent else { continue }
      children[parent, default: []].append(child)
    }
    var result: [pid_t] = []
    var queue = children[pid] ?? []
    while let next = queue.popLast() {
      result.append(next)
      queue += children[next] ?? []
    }
    return result
  }
}
