import Foundation
import LocalAuthTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The world's clients: fprintd's tools, the virtual finger, and pamtester on the private bus.
extension FprintdWorld {
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
    let base = PAMServiceFolder(serviceDir).wrapperEnvironment(
      ["PAM_WRAPPER_DEBUGLEVEL": "2", "DBUS_SYSTEM_BUS_ADDRESS": busAddress])
    let run = try Run.program(
      Artifacts.pamtester, [service, user] + operations, stdin: stdin, environment: base.merging(environment) { $1 },
      timeout: timeout)
    return PamtesterRun(run: run)
  }
}
