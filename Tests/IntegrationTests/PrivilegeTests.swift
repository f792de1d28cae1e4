import Foundation
import Testing

extension RealPAM {
  /// A PAM application that does not run as root cannot read the state; without a usable localauth-helper
  /// (HelperTests covers the helper) that is PAM_AUTHINFO_UNAVAIL, a clear log line, no crash and no success.
  @Suite("Not running as root")
  struct PrivilegeTests {
    func prepare(_ s: Sandbox) throws {
      try Setups.ready(s)
      try s.touch()
      try s.writeService([s.moduleLine(["helper=" + s.root + "/no-helper"])])
    }

    /// Runs a program as the test user (real and effective uid), through setpriv.
    func asUser(_ s: Sandbox, _ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ProcessRun {
      try Run.program(
        "/usr/bin/setpriv", ["--reuid", "\(s.uid)", "--regid", "\(getpwnam(s.user)?.pointee.pw_gid ?? 65534)", "--clear-groups",
          program] + arguments, stdin: "", environment: environment)
    }

    @Test("PAMHarness as the user")
    func harness() throws {
      try withSandbox { s in
        try prepare(s)
        let run = try asUser(s, Artifacts.harness, ["--confdir", s.serviceDir, "--service", s.service, "--user", s.user])
        #expect(run.stdoutLines == ["result: PAM_AUTHINFO_UNAVAIL (9) Authentication service cannot retrieve authentication info"])
        #expect(run.status == 1)
      }
    }

    @Test("pamtester as the user, with the log line", .enabled(if: Artifacts.pamtesterAvailable, "pamtester or libpam-wrapper missing"))
    func pamtester() throws {
      try withSandbox { s in
        try prepare(s)
        let run = PamtesterRun(
          run: try asUser(
            s, Artifacts.pamtester, [s.service, s.user, "authenticate"],
            environment: s.pamtesterEnvironment()))
        #expect(run.verdict == PAMText.verdict("PAM_AUTHINFO_UNAVAIL"))
        #expect(
          run.syslog.contains {
            $0 == "pam_sm_authenticate runs as uid \(s.uid) and cannot read the state itself; the helper \(s.root)/no-helper "
              + "cannot be used: it does not exist, so pam_localauth does not apply (PAM_AUTHINFO_UNAVAIL)."
          }, "\(run.syslog)")
      }
    }
  }
}
