import Foundation
import Testing

extension RealPAM {
  /// A `conf=` file that is not a configuration file (one that holds a secret): the module's log names the line,
  /// never its text, whether the line is an unknown key or a known key's malformed value.
  @Suite("Configuration log privacy", .enabled(if: Artifacts.pamtesterAvailable, "pamtester or libpam-wrapper missing"))
  struct ConfigLogPrivacyTests {
    static let secret = "secret-password-12345"

    /// Writes `text` as the sandbox's configuration file (root, 0600) and a passcode-only service.
    static func prepare(_ sandbox: Sandbox, configuration text: String) throws {
      try sandbox.setPasscode()
      try text.write(toFile: sandbox.configFile, atomically: false, encoding: .utf8)
      try sandbox.writeService([sandbox.moduleLine(["sensor=none"])])
    }

    @Test("an unknown line is logged by its number; its text never reaches the log")
    func unknownLineIsNotLogged() throws {
      try withSandbox { sandbox in
        try Self.prepare(sandbox, configuration: "# root's notes\n\(Self.secret)\n")
        let run = try sandbox.pamtester(stdin: "1234\n")
        #expect(run.verdict == PAMText.verdict("PAM_SUCCESS"), "\(run.run.stderr)")
        #expect(run.syslog.contains("Unrecognized option on line 2 of \(sandbox.configFile) ignored."), "\(run.syslog)")
        #expect(!run.run.stderr.contains(Self.secret) && !run.run.stdout.contains(Self.secret), "\(run.run.stderr)")
      }
    }

    @Test("a malformed value is logged by key and line; the value never reaches the log")
    func malformedValueIsNotLogged() throws {
      try withSandbox { sandbox in
        try Self.prepare(sandbox, configuration: "timeout = \(Self.secret)\n")
        let run = try sandbox.pamtester(stdin: "1234\n")
        #expect(run.verdict == PAMText.verdict("PAM_SERVICE_ERR"), "\(run.run.stderr)")
        #expect(
          run.syslog.contains {
            $0.contains("Invalid value for option timeout on line 1 of \(sandbox.configFile): expected seconds from 1 to 600.")
          }, "\(run.syslog)")
        #expect(!run.run.stderr.contains(Self.secret) && !run.run.stdout.contains(Self.secret), "\(run.run.stderr)")
      }
    }
  }
}
