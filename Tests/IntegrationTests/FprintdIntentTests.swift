import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Intent with a real reader (docs/RULES.md, "Intent"; CVE-2024-37408): a request nobody at the machine can see
/// never claims fprintd's reader, so a finger the user gives for something else cannot approve it. The D-Bus calls
/// to fprintd are watched with dbus-monitor on the world's private bus; pam_fprintd, run the same way, claims the
/// reader and takes the finger, which is the CVE.
extension RealPAM.FprintdTests {
  /// Records the Claim calls made to fprintd on `world`'s bus while it runs.
  final class ClaimWatch {
    let process = Process()
    let output: String

    init(_ world: FprintdWorld, folder: String) throws {
      output = folder + "/claims.log"
      FileManager.default.createFile(atPath: output, contents: nil)
      process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
      process.arguments = [
        "--address", world.busAddress, "--monitor",
        "type='method_call',interface='net.reactivated.Fprint.Device',member='Claim'",
      ]
      process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
      process.standardError = FileHandle.nullDevice
      process.standardInput = FileHandle.nullDevice
      try process.run()
      // dbus-monitor prints the NameAcquired signal of its own connection once it monitors.
      let deadline = Date().addingTimeInterval(10)
      while Date() < deadline && !((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("NameAcquired") {
        usleep(20_000)
      }
    }

    /// The Claim calls seen so far.
    var claims: Int {
      ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").components(separatedBy: "member=Claim").count - 1
    }

    /// Ends dbus-monitor, waiting at most 5 s.
    func stop() {
      guard process.isRunning else { return }
      kill(process.processIdentifier, SIGTERM)
      let deadline = Date().addingTimeInterval(5)
      while process.isRunning && Date() < deadline { usleep(20_000) }
    }
  }

  static var dbusMonitor: Bool { access("/usr/bin/dbus-monitor", X_OK) == 0 }

  @Test(
    "a request nobody can see (no terminal, not a GUI service) never claims the reader: the passcode is asked; pam_fprintd claims it (CVE-2024-37408)",
    .enabled(if: dbusMonitor, "dbus-monitor missing"))
  func hiddenRequestNeverClaims() throws {
    try withSandbox { s in
      let f = try Fixture(s)
      defer { f.stop() }
      try f.acknowledge()
      // The same stack without the sandbox's gui_services: pamtester has no terminal, so nobody sees the request.
      try s.writeService([
        s.moduleLine([
          "sensor=fprintd", "fprint_dir=" + f.world.stateDir, "timeout=10", "policy=deviceOwnerAuthentication",
          "gui_services=",
        ])
      ])
      let watch = try ClaimWatch(f.world, folder: s.root)
      defer { watch.stop() }
      let feeder = try f.world.feed(["SCAN print-A"], timeout: 5)
      defer { feeder.stop() }
      let hidden = try f.world.pamtester(service: s.service, user: s.user, serviceDir: s.serviceDir, stdin: "1234\n")
      #expect(hidden.verdict == PAMText.verdict("PAM_SUCCESS"), "\(hidden.run.stderr)")
      #expect(hidden.conversation.contains("Enter Passcode: "), "\(hidden.run.stderr)")
      #expect(!(hidden.run.stdout + hidden.run.stderr).contains("Swipe your"), "\(hidden.run.stdout)")
      #expect(watch.claims == 0, "fprintd's Claim was called for a hidden request")
      #expect(!feeder.events.contains { $0.hasPrefix("SENT") }, "\(feeder.transcript)")
      // The control: pam_fprintd, asked the same way, claims the reader and takes the finger.
      let feeder2 = try f.world.feed(["SCAN print-A"])
      defer { feeder2.stop() }
      let theirs = try f.theirs()
      #expect(watch.claims >= 1, "dbus-monitor saw no Claim from pam_fprintd either: the watch does not work")
      FprintdComparison.shared.record(
        "A request with no terminal (a script's sudo), a matching finger given meanwhile",
        ours: "reader never claimed; passcode asked (" + Self.name(hidden) + ")",
        theirs: "reader claimed, finger taken (" + Self.name(theirs) + ")")
    }
  }
}
