import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealPAM {
  /// The folders above the state folder and the record's links, through pamtester: whoever may move the state
  /// folder aside, or holds a second name of a record, is refused, and the module fails closed (PAM_SYSTEM_ERR).
  @Suite("State folder trust", .enabled(if: Artifacts.pamtesterAvailable, "pamtester or libpam-wrapper missing"))
  struct StateFolderTrustTests {
    /// A sandbox whose user has the passcode 1234 and no sensor: a right passcode succeeds when nothing is wrong.
    static func prepare(_ sandbox: Sandbox) throws {
      try sandbox.setPasscode()
      try sandbox.writeService([sandbox.moduleLine(["sensor=none"])])
    }

    /// Runs pamtester with the right passcode and checks the module refused with a log line holding `words`.
    static func expectRefused(_ sandbox: Sandbox, _ words: String) throws {
      let run = try sandbox.pamtester(stdin: "1234\n")
      #expect(run.status != 0)
      #expect(run.verdict == PAMText.verdict("PAM_SYSTEM_ERR"), "\(run.run.stderr)")
      #expect(run.syslog.contains { $0.contains(words) }, "no log line with \(words) in \(run.syslog)")
    }

    @Test("a state folder below a folder owned by another user is refused, naming that folder")
    func parentOwnedByAUser() throws {
      try withSandbox { sandbox in
        try Self.prepare(sandbox)
        #expect(chown(sandbox.root, sandbox.uid, 0) == 0)
        try Self.expectRefused(
          sandbox, "The state file \(sandbox.root) is insecure: it is above the state folder and owned by uid \(sandbox.uid), not root.")
      }
    }

    @Test("a state folder below a world-writable folder without the sticky bit is refused")
    func parentWorldWritable() throws {
      try withSandbox { sandbox in
        try Self.prepare(sandbox)
        #expect(chmod(sandbox.root, 0o777) == 0)
        try Self.expectRefused(
          sandbox,
          "The state file \(sandbox.root) is insecure: it is above the state folder and writable by group or others without the sticky bit (mode 777).")
      }
    }

    @Test("a sticky world-writable folder above the state folder, as /tmp, is accepted")
    func stickyParentIsAccepted() throws {
      try withSandbox { sandbox in
        try Self.prepare(sandbox)
        #expect(chmod(sandbox.root, 0o1777) == 0)
        let run = try sandbox.pamtester(stdin: "1234\n")
        #expect(run.verdict == PAMText.verdict("PAM_SUCCESS"), "\(run.run.stderr)")
      }
    }

    @Test("a record with a second hard link is refused")
    func hardLinkedRecord() throws {
      try withSandbox { sandbox in
        try Self.prepare(sandbox)
        #expect(link(sandbox.recordPath, sandbox.root + "/kept-copy") == 0)
        try Self.expectRefused(sandbox, "The state file \(sandbox.recordPath) is insecure: it has 2 hard links.")
      }
    }
  }
}
