import Foundation
import LocalAuthTestSupport
import Testing

extension RealPAM {
  /// `parallel_passcode` with `sensor=fprintd` (issue 23, section 2): pamtester on a pseudo-terminal (its standard
  /// input the controlling terminal, as login's, su's and sudo's), the virtual reader behind a private fprintd.
  @Suite(
    "parallel_passcode with a real reader through fprintd", .serialized,
    .enabled(if: FprintdWorld.pamtesterAvailable, "needs fprintd, python3-dbusmock and libpam-fprintd (make deps)"),
    .enabled(if: !LoginSuEnvironment.python.isEmpty, "needs python3 for the terminal driver"))
  struct FprintdParallelTests {
    /// Runs pamtester for the sandbox user on a pseudo-terminal through the driver's `steps`.
    static func drive(_ f: FprintdTests.Fixture, _ steps: [String]) throws -> LoginSuTests.DriveResult {
      let driver = LoginSuEnvironment.repositoryRoot.appendingPathComponent("Tests/scripts/e2e-ptydrive.py").path
      let environment = f.sandbox.services.wrapperEnvironment(["DBUS_SYSTEM_BUS_ADDRESS": f.world.busAddress])
      let arguments = [driver, "--timeout", "15"] + steps + ["--", Artifacts.pamtester, f.sandbox.service, f.sandbox.user, "authenticate"]
      let run = try Run.program(LoginSuEnvironment.python, arguments, environment: environment, timeout: 60)
      return LoginSuTests.DriveResult(run.stdout)
    }

    /// A driver step sending one command to the virtual reader (it listens between Claim and Release).
    static func readerStep(_ f: FprintdTests.Fixture, _ command: String) -> String {
      "run:\(LoginSuEnvironment.python) -c \"import socket,time\nfor i in range(100):\n  try:\n    s=socket.socket(socket.AF_UNIX);s.connect('\(f.world.deviceSocket)');break\n  except OSError: time.sleep(0.05)\ns.sendall(b'\(command)');s.shutdown(1);s.recv(100)\""
    }

    static func parallelService(_ f: FprintdTests.Fixture) throws {
      try f.sandbox.writeService([
        f.sandbox.moduleLine(["sensor=fprintd", "fprint_dir=" + f.world.stateDir, "timeout=10", "parallel_passcode"])
      ])
    }

    @Test("the reader lost while the passcode is typed: the prompt becomes the passcode prompt, keeping what was typed")
    func unpluggedWhileTyping() throws {
      try withSandbox { s in
        let f = try FprintdTests.Fixture(s)
        defer { f.stop() }
        try f.acknowledge()
        try Self.parallelService(f)
        let run = try Self.drive(f, [
          "expect:Place your finger or enter your passcode: ", "type:12", "sleep:0.3", Self.readerStep(f, "UNPLUG"),
          "expect:Enter Passcode: ", "send:34", "expect:successfully authenticated", "eof",
        ])
        #expect(run.stepsCompleted, "\(run.transcript)")
        #expect(run.exitStatus == 0, "\(run.transcript)")
      }
    }

    @Test("a matching finger while half a passcode is typed: success at once")
    func fingerWhileTyping() throws {
      try withSandbox { s in
        let f = try FprintdTests.Fixture(s)
        defer { f.stop() }
        try f.acknowledge()
        try Self.parallelService(f)
        let run = try Self.drive(f, [
          "expect:Place your finger or enter your passcode: ", "type:12", "sleep:0.3", Self.readerStep(f, "SCAN print-A"),
          "expect:successfully authenticated", "eof",
        ])
        #expect(run.stepsCompleted, "\(run.transcript)")
        #expect(run.exitStatus == 0, "\(run.transcript)")
        #expect(!run.transcript.contains("Enter Passcode"), "\(run.transcript)")
      }
    }
  }
}
