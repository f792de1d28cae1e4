import Foundation
import LocalAuthTestSupport
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
/// What the virtual device and fprintd 1.94.2 do (measured; Tests/scripts/fprintd-world.py has the same notes):
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

  let lock = NSLock()
  private var bus: WorldProcess?
  private var polkit: WorldProcess?
  private var fprintd: WorldProcess?
  private var fprintdStarts = 0
  var feeders: [Feeder] = []
  var stopped = false

  static let fprintdPath = "/usr/libexec/fprintd"
  static let dbusDaemon = PrivateSystemBus.daemon
  static let gdbusPath = PrivateSystemBus.gdbus
  /// Debian's interpreter, which has python3-dbusmock.
  static let python = PrivateSystemBus.python
  /// The helper that feeds the virtual device (Tests/scripts/fprintd-world.py).
  static let helper: String = {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    return repository.appendingPathComponent("Tests/scripts/fprintd-world.py").path
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
      && PAMServiceFolder.wrapperInstalled
  }

  /// Starts the bus, the polkit mock and fprintd in `root` (a folder the caller owns and removes), each waited
  /// for (at most `timeout` seconds each, polled every 50 ms). On failure everything started is stopped.
  init(root: String, timeout: Double = 10) throws {
    self.root = root
    busSocket = root + "/bus.sock"
    busAddress = PrivateSystemBus.address(socket: busSocket)
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
    let config = PrivateSystemBus.configuration(socket: busSocket)
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

  // MARK: Helpers

  func waitUntil(_ what: String, timeout: Double, _ check: () throws -> Bool) throws {
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
