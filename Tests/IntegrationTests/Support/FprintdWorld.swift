import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A private fprintd with libfprint's virtual reader (`virtual_device`), on a private bus that plays the system
/// bus, with a polkit mock that allows everything (docs: ../shared/reference/TEST-RECIPES.md, section A).
/// Everything lives in the caller's folder `root`; every process is a child of the test and is ended by its pid.
///
/// - `root/bus.conf`, `root/bus.sock`: the bus (`busAddress`). Clients find it through DBUS_SYSTEM_BUS_ADDRESS,
///   which only works for callers that are not setuid (sd-bus and GDBus read it with secure_getenv).
/// - `root/vdev.sock`: the virtual device's socket. It listens only between Claim and Release. The device queues
///   the commands it gets and consumes SCAN, RETRY and ERROR while a verify or enroll action runs.
/// - `root/state`: fprintd's STATE_DIRECTORY. Prints are stored as `state/<user>/virtual_device/0/<finger>`,
///   `<finger>` being libfprint's FpFinger number (1 left thumb … 5 left little, 6 right thumb, 7 right index …
///   10 right little). Folders are root 0700, files root 0644; a re-enrolment rewrites the same file in place.
///   The file (an FP3 GVariant) holds the driver, device id, user name, enrolment date and, for this driver, the
///   print id ("print-A"), so a re-enrolment with another print id changes its bytes.
/// - `root/*.log`: each daemon's output (fprintd's with G_MESSAGES_DEBUG=all: every received device command).
///
/// What the virtual device and fprintd 1.94.2 do (measured; scripts/fprintd-world.py has the same notes):
/// - VerifyStart → VerifyFingerSelected("right-index-finger") and finger-needed=true. A command that arrives
///   earlier is queued and consumed at once by VerifyStart: its VerifyStatus can come before VerifyStart's reply
///   (and before VerifyFingerSelected); a client that subscribes late loses it. The feeder therefore sends on
///   VerifyFingerSelected.
/// - `SCAN <enrolled id>` → VerifyStatus("verify-match", true); any other id → ("verify-no-match", true).
///   done=true ends the verify session: nothing more is consumed until VerifyStop + VerifyStart
///   (a new VerifyFingerSelected). VerifyStart without VerifyStop fails with Fprint.Error.AlreadyInUse.
/// - `RETRY 0|1|2|3` → ("verify-retry-scan" | "verify-swipe-too-short" | "verify-finger-not-centered" |
///   "verify-remove-and-retry", false): fprintd re-arms the verify action itself (finger-needed false → true,
///   no new VerifyFingerSelected); the next command may follow at once.
/// - `ERROR 5` → ("verify-disconnected", true), `ERROR 7` → ("verify-no-match", true), other codes →
///   ("verify-unknown-error", true).
/// - `UNPLUG` during a verify → after 0.5 s ("verify-unknown-error", true); Release then fails with
///   Fprint.Error.Internal and the device object disappears (InterfacesRemoved); GetDefaultDevice answers
///   Fprint.Error.NoSuchDevice until fprintd restarts (`restartFprintd()`).
/// - VerifyStop on a running verify emits ("verify-no-match", true) before its reply.
/// - No prints: VerifyStart fails with Fprint.Error.NoEnrolledPrints; ListEnrolledFingers too.
/// - VerifyStart("any") with several fingers enrolled: this driver cannot identify, so fprintd verifies ONE
///   finger, the lowest FpFinger number (left-thumb before right-index-finger), named by VerifyFingerSelected;
///   a scan of another enrolled finger is a no-match.
/// - pam_fprintd (1.94.2, `max-tries=2 timeout=10`): match → PAM_SUCCESS; every try no-match → PAM_MAXTRIES;
///   RETRY statuses do not count as tries; timeout (its minimum is 10 s), no prints, no device (after UNPLUG),
///   no fprintd → PAM_AUTHINFO_UNAVAIL.
final class FprintdWorld: @unchecked Sendable {
  /// The caller's folder.
  let root: String
  /// The private bus's address (the value for DBUS_SYSTEM_BUS_ADDRESS).
  let busAddress: String
  /// The bus's socket.
  let busSocket: String
  /// The virtual device's socket (FP_VIRTUAL_DEVICE).
  let deviceSocket: String
  /// fprintd's STATE_DIRECTORY, where it stores prints.
  let stateDir: String
  /// How long `init` took to have the bus, polkit and fprintd ready, in seconds.
  private(set) var startupSeconds: Double = 0

  private let lock = NSLock()
  private var bus: WorldProcess?
  private var polkit: WorldProcess?
  private var fprintd: WorldProcess?
  private var fprintdStarts = 0
  private var feeders: [Feeder] = []
  private var stopped = false

  static let fprintdPath = "/usr/libexec/fprintd"
  static let dbusDaemon = "/usr/bin/dbus-daemon"
  static let gdbusPath = "/usr/bin/gdbus"
  /// Debian's interpreter, which has python3-dbusmock (`python3` on PATH may be another one).
  static let python = "/usr/bin/python3"
  /// The helper that feeds the virtual device (scripts/fprintd-world.py).
  static let helper: String = {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    return repository.appendingPathComponent("scripts/fprintd-world.py").path
  }()
  /// Debian's pam_fprintd.
  static let pamFprintd: String? = ["/lib/x86_64-linux-gnu/security/pam_fprintd.so", "/usr/lib/x86_64-linux-gnu/security/pam_fprintd.so",
    "/lib/aarch64-linux-gnu/security/pam_fprintd.so", "/usr/lib/aarch64-linux-gnu/security/pam_fprintd.so"]
    .first(where: FileManager.default.fileExists(atPath:))

  /// True when the world can run here: root, fprintd and its tools, dbus-daemon, gdbus, Debian's python3 with
  /// dbusmock (and python3-dbus, python3-gi), and the helper script.
  static var available: Bool { availability }

  private static let availability: Bool = {
    guard getuid() == 0 else { return false }
    let programs = [fprintdPath, dbusDaemon, gdbusPath, python, "/usr/bin/fprintd-enroll", "/usr/bin/fprintd-delete"]
    guard programs.allSatisfy(FileManager.default.isExecutableFile(atPath:)),
      FileManager.default.fileExists(atPath: helper)
    else { return false }
    let probe = try? Run.program(python, ["-c", "import dbusmock, dbus, dbus.mainloop.glib, gi.repository.GLib"], timeout: 20)
    return probe?.status == 0
  }()

  /// True when pamtester, pam_wrapper and pam_fprintd are installed as well (for runs through pam_fprintd).
  static var pamtesterAvailable: Bool {
    available && pamFprintd != nil && FileManager.default.isExecutableFile(atPath: Artifacts.pamtester)
      && ["/usr/lib/x86_64-linux-gnu/libpam_wrapper.so", "/usr/lib/aarch64-linux-gnu/libpam_wrapper.so", "/usr/lib/libpam_wrapper.so"]
        .contains(where: FileManager.default.fileExists(atPath:))
  }

  /// Starts the bus, the polkit mock and fprintd in `root` (a folder the caller owns and removes), each waited
  /// for (at most `timeout` seconds each, polled every 50 ms). On failure everything started is stopped.
  init(root: String, timeout: Double = 10) throws {
    self.root = root
    busSocket = root + "/bus.sock"
    busAddress = "unix:path=" + busSocket
    deviceSocket = root + "/vdev.sock"
    stateDir = root + "/state"
    guard busSocket.utf8.count < 100 else { throw FprintdWorldError.setup("\(root) is too long for a socket path") }
    let started = Date()
    do {
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
      if !FileManager.default.fileExists(atPath: stateDir) {
        guard mkdir(stateDir, 0o700) == 0 else { throw FprintdWorldError.setup("mkdir \(stateDir) failed") }
      }
      try startBus(timeout: timeout)
      try startPolkit(timeout: timeout)
      try startFprintd(timeout: timeout)
    } catch {
      stop()
      throw error
    }
    startupSeconds = Date().timeIntervalSince(started)
  }

  deinit { stop() }

  /// Stops every feeder and daemon (and their children), fprintd first. Safe to call twice.
  func stop() {
    let (feeders, daemons): ([Feeder], [WorldProcess?]) = lock.withLock {
      stopped = true
      defer { self.feeders = [] }
      return (self.feeders, [fprintd, polkit, bus])
    }
    for feeder in feeders { feeder.stop() }
    for daemon in daemons { daemon?.stop() }
  }

  /// The pids of the daemons started so far (to check that none is left after `stop()`).
  var pids: [Int32] { lock.withLock { [bus, polkit, fprintd].compactMap { $0?.pid } } }

  /// The environment a client of the private bus needs.
  var clientEnvironment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": busAddress] }

  // MARK: Daemons

  private func startBus(timeout: Double) throws {
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
    try config.write(toFile: root + "/bus.conf", atomically: true, encoding: .utf8)
    let daemon = try WorldProcess(
      name: "dbus-daemon", executable: Self.dbusDaemon,
      arguments: ["--config-file=" + root + "/bus.conf", "--nofork", "--nopidfile"], environment: [:],
      log: root + "/bus.log")
    lock.withLock { bus = daemon }
    try daemon.waitUntil("the bus listens on \(busSocket)", timeout: timeout) { Self.canConnect(busSocket) }
  }

  private func startPolkit(timeout: Double) throws {
    let daemon = try WorldProcess(
      name: "polkitd mock", executable: Self.python, arguments: ["-m", "dbusmock", "--system", "--template", "polkitd"],
      environment: clientEnvironment, log: root + "/polkit.log")
    lock.withLock { polkit = daemon }
    // AllowUnknown: every action is granted, to root and to other users (the real polkitd needs logind).
    try daemon.waitUntil("the polkit mock answers", timeout: timeout) {
      try gdbus([
        "call", "--system", "-d", "org.freedesktop.PolicyKit1", "-o", "/org/freedesktop/PolicyKit1/Authority", "-m",
        "org.freedesktop.DBus.Mock.AllowUnknown", "true",
      ]).status == 0
    }
  }

  private func startFprintd(timeout: Double) throws {
    let count = lock.withLock {
      fprintdStarts += 1
      return fprintdStarts
    }
    let environment = clientEnvironment.merging([
      "FP_VIRTUAL_DEVICE": deviceSocket,
      // Only the virtual driver: a real reader on the machine must not become the default device.
      "FP_DRIVERS_WHITELIST": "virtual_device",
      "STATE_DIRECTORY": stateDir,
      "RUNTIME_DIRECTORY": root + "/run",
      "G_MESSAGES_DEBUG": "all",
    ]) { $1 }
    let daemon = try WorldProcess(
      name: "fprintd", executable: Self.fprintdPath, arguments: ["-t"], environment: environment,
      log: root + (count == 1 ? "/fprintd.log" : "/fprintd.\(count).log"))
    lock.withLock { fprintd = daemon }
    try daemon.waitUntil("fprintd has a device", timeout: timeout) { hasDevice }
  }

  /// Ends fprintd (for "fprintd is not running"); the bus and polkit stay.
  func stopFprintd() {
    let daemon = lock.withLock {
      defer { fprintd = nil }
      return fprintd
    }
    daemon?.stop()
  }

  /// Stops fprintd if it runs and starts a new one on the same state folder (the prints stay), for instance
  /// after an unplug. Its log goes to `fprintd.<n>.log`.
  func restartFprintd(timeout: Double = 10) throws {
    stopFprintd()
    try startFprintd(timeout: timeout)
  }

  /// True when fprintd runs and answers GetDefaultDevice with a device.
  var hasDevice: Bool {
    guard
      let run = try? gdbus([
        "call", "--system", "-d", "net.reactivated.Fprint", "-o", "/net/reactivated/Fprint/Manager", "-m",
        "net.reactivated.Fprint.Manager.GetDefaultDevice",
      ])
    else { return false }
    return run.status == 0 && run.stdout.contains("/net/reactivated/Fprint/Device/")
  }

  /// A daemon's log (`bus`, `polkit`, `fprintd`, or `fprintd.<n>` after restarts).
  func log(_ name: String) -> String {
    (try? String(contentsOfFile: root + "/" + name + ".log", encoding: .utf8)) ?? ""
  }

  // MARK: Tools

  /// Runs gdbus on the private bus (use `--system`).
  func gdbus(_ arguments: [String], timeout: Double = 5) throws -> ProcessRun {
    try Run.program(Self.gdbusPath, arguments, environment: clientEnvironment, timeout: timeout)
  }

  /// Runs an fprintd command-line tool (fprintd-enroll, fprintd-list, fprintd-delete, fprintd-verify) on the
  /// private bus.
  func tool(_ name: String, _ arguments: [String], timeout: Double = 20) throws -> ProcessRun {
    try Run.program("/usr/bin/" + name, arguments, environment: clientEnvironment, timeout: timeout)
  }

  /// Enrolls `finger` of `user` with fprintd-enroll, the device scanning `printID` at every stage (fed on each
  /// EnrollStatus; the device's default is 5 stages). Enrolling an enrolled finger again replaces its print:
  /// that is the re-enrolment (`reenroll`).
  func enroll(user: String, finger: String = "right-index-finger", printID: String = "print-A", timeout: Double = 20) throws {
    let feeder = try feed(["SCAN " + printID], enroll: true, repeatLast: true, timeout: timeout)
    defer { feeder.stop() }
    let run = try tool("fprintd-enroll", ["-f", finger, user], timeout: timeout)
    guard run.status == 0, run.stdout.contains("Enroll result: enroll-completed") else {
      throw FprintdWorldError.failed("fprintd-enroll -f \(finger) \(user)", run.stdout + run.stderr + "\nfeeder:\n" + feeder.transcript)
    }
  }

  /// Enrolls `finger` again with another print id (fprintd replaces the print file in place).
  func reenroll(user: String, finger: String = "right-index-finger", printID: String, timeout: Double = 20) throws {
    try enroll(user: user, finger: finger, printID: printID, timeout: timeout)
  }

  /// Deletes the user's prints (all of them, or `finger`) with fprintd-delete.
  func deleteEnrolled(user: String, finger: String? = nil) throws {
    let run = try tool("fprintd-delete", [user] + (finger.map { ["-f", $0] } ?? []))
    guard run.status == 0 else { throw FprintdWorldError.failed("fprintd-delete \(user)", run.stdout + run.stderr) }
  }

  /// The fingers fprintd lists for `user` (empty when none, or when fprintd does not answer).
  func enrolledFingers(user: String) -> [String] {
    guard
      let run = try? gdbus([
        "call", "--system", "-d", "net.reactivated.Fprint", "-o", "/net/reactivated/Fprint/Device/0", "-m",
        "net.reactivated.Fprint.Device.ListEnrolledFingers", user,
      ]), run.status == 0
    else { return [] }
    // (['right-index-finger', 'left-thumb'],)
    return run.stdout.split(separator: "'").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
  }

  /// The folder where fprintd keeps `user`'s prints: `<state>/<user>`, holding `virtual_device/0/<finger number>`.
  func printsFolder(user: String) -> String { stateDir + "/" + user }

  /// The user's print files (full paths, sorted).
  func printFiles(user: String) -> [String] {
    let folder = printsFolder(user: user)
    guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
    var files: [String] = []
    while let relative = walker.nextObject() as? String {
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: folder + "/" + relative, isDirectory: &isFolder), !isFolder.boolValue {
        files.append(folder + "/" + relative)
      }
    }
    return files.sorted()
  }

  // MARK: The finger

  /// Starts a background finger: each command is sent to the device when it waits for one (see the notes on
  /// the type): on VerifyFingerSelected, and after a VerifyStatus with done=false. `PAUSE <ms>` waits before the
  /// next command. Returns once the feeder listens to the bus; start the client afterwards.
  /// With `enroll`, it arms on finger-needed and EnrollStatus instead; `repeatLast` repeats the last command
  /// until a status with done=true.
  func feed(_ commands: [String], enroll: Bool = false, repeatLast: Bool = false, timeout: Double = 30) throws -> Feeder {
    var arguments = [Self.helper, "feed", "--bus", busAddress, "--socket", deviceSocket, "--timeout", String(timeout)]
    if enroll { arguments.append("--enroll") }
    if repeatLast { arguments.append("--repeat-last") }
    guard !lock.withLock({ stopped }) else { throw FprintdWorldError.setup("the world is stopped") }
    let feeder = try Feeder(arguments: arguments + ["--"] + commands, environment: clientEnvironment)
    lock.withLock { feeders.append(feeder) }
    do {
      try feeder.waitReady(timeout: 10)
    } catch {
      feeder.stop()
      throw error
    }
    return feeder
  }

  /// Sends one command to the device now and returns its reply. The device listens only while it is claimed;
  /// the connection is retried until `timeout`.
  @discardableResult
  func send(_ command: String, timeout: Double = 2) throws -> String {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if let reply = Self.exchange(deviceSocket, command) { return reply }
      if Date() >= deadline { throw FprintdWorldError.timedOut("the device listening on \(deviceSocket)") }
      usleep(10_000)
    }
  }

  /// Unplugs the virtual reader now. If a client has claimed it (an authentication runs), the command goes to
  /// the device directly: the running verify ends with ("verify-unknown-error", true) after 0.5 s and the
  /// device disappears when the client releases it. Otherwise the world claims it (as root), unplugs it and
  /// releases it, and returns once fprintd has no device. Either way fprintd stays without a device until
  /// `restartFprintd()`.
  func unplugNow() throws {
    if Self.exchange(deviceSocket, "UNPLUG") != nil { return }
    let run = try Run.program(
      Self.python, [Self.helper, "claim-send", "--bus", busAddress, "--socket", deviceSocket, "UNPLUG"],
      environment: clientEnvironment, timeout: 20)
    guard run.status == 0 else { throw FprintdWorldError.failed("claim-send UNPLUG", run.stdout + run.stderr) }
    try waitUntil("fprintd drops the unplugged device", timeout: 10) { !hasDevice }
  }

  // MARK: PAM

  /// Runs pamtester through pam_wrapper on `serviceDir` with the private bus as the system bus (pamtester is not
  /// setuid, so pam_fprintd's sd-bus honours DBUS_SYSTEM_BUS_ADDRESS).
  func pamtester(
    service: String, user: String, serviceDir: String, stdin: String = "", operations: [String] = ["authenticate"],
    environment: [String: String] = [:], timeout: Double = 60
  ) throws -> PamtesterRun {
    let base = [
      "LD_PRELOAD": "libpam_wrapper.so", "PAM_WRAPPER": "1", "PAM_WRAPPER_SERVICE_DIR": serviceDir,
      "PAM_WRAPPER_DEBUGLEVEL": "2", "DBUS_SYSTEM_BUS_ADDRESS": busAddress,
    ]
    let run = try Run.program(
      Artifacts.pamtester, [service, user] + operations, stdin: stdin, environment: base.merging(environment) { $1 },
      timeout: timeout)
    return PamtesterRun(run: run)
  }

  // MARK: Helpers

  private func waitUntil(_ what: String, timeout: Double, _ check: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if (try? check()) == true { return }
      if Date() >= deadline { throw FprintdWorldError.timedOut(what) }
      usleep(50_000)
    }
  }

  /// True when something accepts connections on the Unix socket `path`.
  static func canConnect(_ path: String) -> Bool {
    guard let fd = connectUnix(path) else { return false }
    close(fd)
    return true
  }

  private static func connectUnix(_ path: String) -> Int32? {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      close(fd)
      return nil
    }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (index, byte) in bytes.enumerated() { buffer[index] = byte }
      buffer[bytes.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard result == 0 else {
      close(fd)
      return nil
    }
    return fd
  }

  /// One exchange with the device: connect, send, shut down the write side, read the reply until the device
  /// closes. nil when the device does not listen.
  static func exchange(_ path: String, _ command: String) -> String? {
    guard let fd = connectUnix(path) else { return nil }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let bytes = Array(command.utf8)
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written == bytes.count else { return nil }
    shutdown(fd, Int32(SHUT_WR))
    var reply: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count <= 0 { break }
      reply += buffer[0..<count]
    }
    return String(decoding: reply, as: UTF8.self)
  }
}

/// Why the world could not do something.
enum FprintdWorldError: Error, CustomStringConvertible {
  case setup(String)
  case timedOut(String)
  case failed(String, String)
  case died(String, String)

  var description: String {
    switch self {
    case .setup(let what): "FprintdWorld: \(what)"
    case .timedOut(let what): "FprintdWorld: timed out waiting for \(what)"
    case .failed(let command, let output): "FprintdWorld: \(command) failed:\n\(output)"
    case .died(let name, let log): "FprintdWorld: \(name) exited while starting; its log:\n\(log)"
    }
  }
}

/// A background program of the world, its output in a log file. `stop()` ends it and every descendant.
final class WorldProcess: @unchecked Sendable {
  let name: String
  let logPath: String
  private let process: Process
  private let lock = NSLock()
  private var stopped = false

  init(name: String, executable: String, arguments: [String], environment: [String: String], log: String) throws {
    self.name = name
    logPath = log
    process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = Run.baseEnvironment.merging(environment) { $1 }
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = output
    try process.run()
    try? output.close()
  }

  var pid: Int32 { process.processIdentifier }
  var isRunning: Bool { process.isRunning }

  /// Polls `check` every 50 ms until it holds, failing early if the program exits.
  func waitUntil(_ what: String, timeout: Double, _ check: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if (try? check()) == true { return }
      if !process.isRunning {
        throw FprintdWorldError.died(name, (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")
      }
      if Date() >= deadline { throw FprintdWorldError.timedOut(what) }
      usleep(50_000)
    }
  }

  /// SIGKILL to the program and every descendant, then reaps it. Safe to call twice.
  ///
  /// Not SIGTERM: children of the test process inherit a signal mask that blocks it (seen in /proc/<pid>/status
  /// SigBlk under swift-testing: Foundation's Process does not reset the mask), so it would stay pending forever.
  func stop() {
    let first: Bool = lock.withLock {
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    if process.isRunning { ProcessTree.kill(pid) }
    process.waitUntilExit()
  }
}

/// The process tree, read from /proc.
enum ProcessTree {
  /// Every descendant of `pid` (children, their children, …).
  static func descendants(of pid: Int32) -> [Int32] {
    var children: [Int32: [Int32]] = [:]
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
      guard let child = Int32(entry), let parent = parentOf(child) else { continue }
      children[parent, default: []].append(child)
    }
    var result: [Int32] = []
    var queue = children[pid] ?? []
    while let next = queue.popLast() {
      result.append(next)
      queue += children[next] ?? []
    }
    return result
  }

  /// The fields of /proc/<pid>/stat after the command name: state, ppid, …
  private static func stat(_ pid: Int32) -> [Substring]? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.range(of: ")", options: .backwards)
    else { return nil }
    return text[close.upperBound...].split(separator: " ")
  }

  static func parentOf(_ pid: Int32) -> Int32? { stat(pid).flatMap { $0.count > 1 ? Int32($0[1]) : nil } }

  /// SIGKILL to `pid` and all its descendants (found before any dies, so none escapes to init), then waits up to
  /// `timeout` seconds until none is left (zombies count as gone).
  static func kill(_ pid: Int32, timeout: Double = 5) {
    let family = descendants(of: pid) + [pid]
    for member in family where alive(member) { _ = Glibc.kill(member, SIGKILL) }
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline, family.contains(where: alive) { usleep(5_000) }
  }

  /// True while the process exists and is not a zombie.
  static func alive(_ pid: Int32) -> Bool {
    guard let fields = stat(pid), let state = fields.first else { return false }
    return state != "Z" && state != "X"
  }
}

/// A background finger (scripts/fprintd-world.py feed): it prints one line per event, which `events` collects:
/// `READY`, `SIGNAL <member> <args…>` (booleans as true/false, for instance `SIGNAL VerifyStatus verify-match
/// true`), `SENT <command> [reply…]`, `PAUSED <ms>`, `DONE` (every command sent and the last one's status
/// seen), `TIMEOUT`, `UNREACHABLE <command>`.
final class Feeder: @unchecked Sendable {
  private let process: Process
  private let condition = NSCondition()
  private var lines: [String] = []
  private var ended = false
  private var stopped = false

  init(arguments: [String], environment: [String: String]) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: FprintdWorld.python)
    process.arguments = arguments
    process.environment = Run.baseEnvironment.merging(environment) { $1 }
    let output = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let reader = output.fileHandleForReading
    Thread.detachNewThread { [self] in
      var pending = Data()
      while true {
        let chunk = reader.availableData
        if chunk.isEmpty { break }
        pending.append(chunk)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
          pending.removeSubrange(pending.startIndex...newline)
          condition.withLock {
            lines.append(line)
            condition.broadcast()
          }
        }
      }
      condition.withLock {
        if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
        ended = true
        condition.broadcast()
      }
    }
  }

  /// Every line so far.
  var events: [String] { condition.withLock { lines } }
  /// The lines as one text (for failure messages).
  var transcript: String { events.joined(separator: "\n") }
  /// The statuses seen so far, such as ("verify-no-match", true).
  var statuses: [(result: String, done: Bool)] {
    events.compactMap { line in
      let words = line.split(separator: " ")
      guard words.count == 4, words[0] == "SIGNAL", words[1] == "VerifyStatus" || words[1] == "EnrollStatus" else { return nil }
      return (String(words[2]), words[3] == "true")
    }
  }
  /// The commands sent so far.
  var sent: [String] {
    events.filter { $0.hasPrefix("SENT ") }.map { String($0.dropFirst(5)) }
  }

  /// Waits until a line satisfies `predicate`; false on timeout or when the feeder ended without one.
  func wait(timeout: Double, for predicate: (String) -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    condition.lock()
    defer { condition.unlock() }
    while true {
      if lines.contains(where: predicate) { return true }
      if ended || !condition.wait(until: deadline) { return lines.contains(where: predicate) }
    }
  }

  /// Waits for READY.
  func waitReady(timeout: Double) throws {
    guard wait(timeout: timeout, for: { $0 == "READY" }) else {
      throw FprintdWorldError.failed("the feeder did not get ready", transcript)
    }
  }

  /// Waits until every command is sent and the last one's status came (DONE).
  @discardableResult
  func waitDone(timeout: Double = 10) -> Bool { wait(timeout: timeout) { $0 == "DONE" } }

  /// Ends the feeder (the commands not yet sent go nowhere) and waits for it. Safe to call twice.
  func stop() {
    let first: Bool = condition.withLock {
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    if process.isRunning { ProcessTree.kill(process.processIdentifier) }
    process.waitUntilExit()
    _ = wait(timeout: 2) { _ in false }
  }
}

// MARK: - Smoke tests

/// The world itself, against Debian's pam_fprintd: an enrolled print matches, two other prints exhaust
/// max-tries=2. Prints how long start-up and one authentication take.
@Suite(
  "FprintdWorldSmoke", .serialized,
  .enabled(if: FprintdWorld.pamtesterAvailable && getuid() == 0, "Needs root, fprintd, python3-dbusmock, gdbus, pamtester, libpam-wrapper and libpam-fprintd."))
struct FprintdWorldSmoke {
  /// A temporary folder with a world, a test user with print-A enrolled, and a pam.d folder whose service
  /// `fprintd-test` is `auth required pam_fprintd.so max-tries=2 timeout=10` (and `other` denies).
  final class Fixture {
    let folder: String
    let user: String
    let world: FprintdWorld
    let serviceDir: String
    let service = "fprintd-test"

    init() throws {
      var template = Array("/tmp/localauth-fp.XXXXXX".utf8CString)
      guard let made = mkdtemp(&template) else { throw FprintdWorldError.setup("mkdtemp failed") }
      folder = String(cString: made)
      chmod(folder, 0o755)
      var rng = SystemRandomNumberGenerator()
      user = "latfp" + String(rng.next() as UInt32, radix: 16)
      serviceDir = folder + "/pam.d"
      do {
        try FileManager.default.createDirectory(atPath: serviceDir, withIntermediateDirectories: true)
        try "auth required pam_fprintd.so max-tries=2 timeout=10\n".write(
          toFile: serviceDir + "/" + service, atomically: true, encoding: .utf8)
        try "auth required pam_deny.so\naccount required pam_deny.so\n".write(
          toFile: serviceDir + "/other", atomically: true, encoding: .utf8)
        try Users.add(user)
        world = try FprintdWorld(root: folder + "/fprintd")
      } catch {
        Users.remove(user)
        try? FileManager.default.removeItem(atPath: folder)
        throw error
      }
    }

    func tearDown() {
      let pids = world.pids
      world.stop()
      world.stop()
      #expect(pids.allSatisfy { !ProcessTree.alive($0) }, "a daemon outlived stop(): \(pids)")
      Users.remove(user)
      try? FileManager.default.removeItem(atPath: folder)
    }

    func authenticate(feeding commands: [String]) throws -> (run: PamtesterRun, feeder: Feeder, seconds: Double) {
      let feeder = try world.feed(commands)
      defer { feeder.stop() }
      let started = Date()
      let run = try world.pamtester(service: service, user: user, serviceDir: serviceDir)
      let seconds = Date().timeIntervalSince(started)
      feeder.waitDone(timeout: 2)
      return (run, feeder, seconds)
    }
  }

  @Test("pam_fprintd: the enrolled print matches")
  func match() throws {
    let fixture = try Fixture()
    defer { fixture.tearDown() }
    print("FPRINTD-WORLD: start-up (bus, polkit mock, fprintd) took \(Self.ms(fixture.world.startupSeconds))")
    let enrolStart = Date()
    try fixture.world.enroll(user: fixture.user)
    print("FPRINTD-WORLD: enrolment (fprintd-enroll, 5 stages) took \(Self.ms(Date().timeIntervalSince(enrolStart)))")
    #expect(fixture.world.enrolledFingers(user: fixture.user) == ["right-index-finger"])
    let files = fixture.world.printFiles(user: fixture.user)
    #expect(files == [fixture.world.printsFolder(user: fixture.user) + "/virtual_device/0/7"])

    let (run, feeder, seconds) = try fixture.authenticate(feeding: ["SCAN print-A"])
    print("FPRINTD-WORLD: one pam_fprintd authentication (match) took \(Self.ms(seconds))")
    #expect(run.verdict == PAMText.verdict("PAM_SUCCESS"), "\(run.run.stdout)\(run.run.stderr)\nfeeder:\n\(feeder.transcript)")
    #expect(feeder.statuses.map(\.result) == ["verify-match"], "\(feeder.transcript)")
  }

  @Test("pam_fprintd: two other prints exhaust max-tries=2")
  func noMatchTwice() throws {
    let fixture = try Fixture()
    defer { fixture.tearDown() }
    try fixture.world.enroll(user: fixture.user)
    let (run, feeder, seconds) = try fixture.authenticate(feeding: ["SCAN print-X", "SCAN print-X"])
    print("FPRINTD-WORLD: one pam_fprintd authentication (two no-matches) took \(Self.ms(seconds))")
    #expect(run.verdict == PAMText.verdict("PAM_MAXTRIES"), "\(run.run.stdout)\(run.run.stderr)\nfeeder:\n\(feeder.transcript)")
    #expect(feeder.statuses.map(\.result) == ["verify-no-match", "verify-no-match"], "\(feeder.transcript)")
    #expect(feeder.sent == ["SCAN print-X", "SCAN print-X"])
  }

  static func ms(_ seconds: Double) -> String { String(format: "%.0f ms", seconds * 1000) }
}
