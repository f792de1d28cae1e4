import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealPAM {
  /// The installed module and pam_localauth/extra.so, its rarely used parts (docs/EMBEDDED.md): a copy of the module
  /// in a folder of its own authenticates by passcode without the library, and refuses with PAM_SYSTEM_ERR and one log
  /// sentence what needs it (a passcode change, `release_authtok`) when the library is missing or writable by others.
  @Suite("Module's library of rarely used parts", .enabled(if: Artifacts.pamtesterAvailable, "pamtester or libpam-wrapper missing"))
  struct ExtraLibraryTests {
    /// Copies the staged module into `sandbox`'s folder `name`, with its library when `library` is true, and writes
    /// a service whose auth and password lines load that copy with `arguments`; returns the copy's folder.
    static func prepare(_ sandbox: Sandbox, folder name: String, library: Bool, arguments: [String] = []) throws -> String {
      let folder = sandbox.root + "/" + name
      try Run.checked("/usr/bin/install", ["-d", "-m", "0755", folder + "/pam_localauth"])
      try Run.checked("/usr/bin/install", ["-m", "0644", Artifacts.module, folder + "/pam_localauth.so"])
      if library {
        let built = (Artifacts.module as NSString).deletingLastPathComponent + "/pam_localauth/extra.so"
        try Run.checked("/usr/bin/install", ["-m", "0644", built, folder + "/pam_localauth/extra.so"])
      }
      try sandbox.setPasscode()
      let lines = [sandbox.moduleLine(["sensor=none"] + arguments), sandbox.moduleLine(["sensor=none"], type: "password")]
      try sandbox.writeService(lines.map { $0.replacingOccurrences(of: Artifacts.module, with: folder + "/pam_localauth.so") })
      return folder
    }

    @Test("without the library, a passcode still authenticates; a passcode change and release_authtok give PAM_SYSTEM_ERR")
    func missingLibrary() throws {
      try withSandbox { sandbox in
        let folder = try Self.prepare(sandbox, folder: "bare", library: false)
        #expect(try sandbox.harness(answers: ["1234"]).result == "PAM_SUCCESS")
        #expect(try sandbox.harness(answers: ["5678", "5678"], operations: ["chauthtok"]).results == ["PAM_SYSTEM_ERR"])
        // The passcode did not change.
        #expect(try sandbox.harness(answers: ["1234"]).result == "PAM_SUCCESS")
        _ = try Self.prepare(sandbox, folder: "bare", library: false, arguments: ["release_authtok"])
        let run = try sandbox.pamtester(stdin: "1234\n")
        #expect(run.verdict == PAMText.verdict("PAM_SYSTEM_ERR"), "\(run.run.stderr)")
        #expect(
          run.syslog.contains(
            "pam_sm_authenticate needs pam_localauth's library pam_localauth/extra.so beside the module, which is missing "
              + "(\(folder)/pam_localauth/extra.so) (PAM_SYSTEM_ERR)."), "\(run.syslog)")
      }
    }

    @Test("with the library beside it, the same copy changes the passcode")
    func libraryBeside() throws {
      try withSandbox { sandbox in
        _ = try Self.prepare(sandbox, folder: "whole", library: true)
        #expect(try sandbox.harness(answers: ["5678", "5678"], operations: ["chauthtok"]).results == ["PAM_SUCCESS"])
        #expect(try sandbox.harness(answers: ["5678"]).result == "PAM_SUCCESS")
      }
    }

    @Test("a library writable by its group is not loaded: release_authtok gives PAM_SYSTEM_ERR")
    func writableLibrary() throws {
      try withSandbox { sandbox in
        let folder = try Self.prepare(sandbox, folder: "loose", library: true, arguments: ["release_authtok"])
        chmod(folder + "/pam_localauth/extra.so", 0o664)
        let run = try sandbox.pamtester(stdin: "1234\n")
        #expect(run.verdict == PAMText.verdict("PAM_SYSTEM_ERR"), "\(run.run.stderr)")
        #expect(
          run.syslog.contains(
            "pam_sm_authenticate needs pam_localauth's library pam_localauth/extra.so beside the module, which is "
              + "writable by its group or others (\(folder)/pam_localauth/extra.so) (PAM_SYSTEM_ERR)."), "\(run.syslog)")
      }
    }
  }
}
