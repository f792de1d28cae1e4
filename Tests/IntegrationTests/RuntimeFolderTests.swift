import Foundation
import LocalAuthTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealPAM {
  /// Waiting prompts live in the runtime folder (`runtime_dir=`, /run/localauth once installed), not in the state
  /// folder: through pamtester, with `localauthctl prompts` and `touch` finding them by the same rule.
  @Suite("Runtime folder", .enabled(if: Artifacts.pamtesterAvailable, "pamtester or libpam-wrapper missing"))
  struct RuntimeFolderTests {
    /// A sandbox whose user has a finger, the passcode 1234 and the passcode rules met, so a prompt opens at once.
    static func prepare(_ sandbox: Sandbox) throws {
      try sandbox.enroll()
      try sandbox.setPasscode()
      try sandbox.satisfyPasscodeRules()
    }

    /// Runs localauthctl with `arguments` (the state folder added), whatever its exit status.
    static func ctl(_ sandbox: Sandbox, _ arguments: [String]) throws -> ProcessRun {
      try Run.program(Artifacts.ctl, arguments + ["--state-dir", sandbox.stateDir])
    }

    /// Waits up to 10 s until `localauthctl prompts USER` (with `folders`) lists one prompt; returns its id.
    static func waitForPrompt(_ sandbox: Sandbox, _ folders: [String]) throws -> String {
      let end = Date().addingTimeInterval(10)
      while Date() < end {
        let listed = try ctl(sandbox, ["prompts", sandbox.user, "--json"] + folders)
        if let prompts = try? JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]],
          let id = prompts.first?["id"] as? String
        {
          return id
        }
        usleep(20_000)
      }
      throw SandboxError.setup("no prompt appeared for \(sandbox.user)")
    }

    @Test("the prompt waits in the configured runtime_dir=, the state folder gets none, and a touch there succeeds")
    func promptWaitsInTheRuntimeFolder() throws {
      try withSandbox { sandbox in
        try Self.prepare(sandbox)
        let runtime = sandbox.root + "/run"
        #expect(mkdir(runtime, 0o700) == 0)
        try "runtime_dir=\(runtime)\n".write(toFile: sandbox.configFile, atomically: true, encoding: .utf8)
        try sandbox.writeService([sandbox.moduleLine(["timeout=10"])])
        let (service, user, environment) = (sandbox.service, sandbox.user, sandbox.services.wrapperEnvironment())
        let pam = Background {
          PamtesterRun(
            run: try Run.program(
              Artifacts.pamtester, [service, user, "authenticate"], stdin: "",
              environment: environment))
        }

        // localauthctl finds the prompt through --runtime-dir, and through the configuration's runtime_dir=.
        let id = try Self.waitForPrompt(sandbox, ["--runtime-dir", runtime])
        #expect(try Self.waitForPrompt(sandbox, ["--conf", sandbox.configFile]) == id)
        #expect(FileManager.default.fileExists(atPath: runtime + "/prompts/" + id + "/prompt"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.stateDir + "/prompts"))
        // Without either, localauthctl looks beside the state folder and finds nothing; a touch there goes nowhere.
        let elsewhere = try Self.ctl(sandbox, ["prompts", sandbox.user])
        #expect(elsewhere.stdout == "No prompt is waiting for \(sandbox.user).\n")
        let lost = try Self.ctl(sandbox, ["touch", sandbox.user, "right-index", "--quality", "1"])
        #expect(lost.status == 1)
        #expect(lost.stderr.contains("No prompt is waiting for \(sandbox.user)."), "\(lost.stderr)")

        let touched = try Self.ctl(sandbox, ["touch", sandbox.user, "right-index", "--quality", "1", "--runtime-dir", runtime])
        #expect(touched.status == 0, "\(touched.stderr)")
        #expect(touched.stdout.hasPrefix("Presented \(sandbox.user)'s finger right-index to prompt \(id) "), "\(touched.stdout)")
        let run = try pam.result()
        #expect(run.verdict == PAMText.verdict("PAM_SUCCESS"), "\(run.run.stderr)")
        // The prompt's folder went with it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime + "/prompts").isEmpty)
      }
    }

    @Test("a runtime folder below a world-writable folder without the sticky bit fails closed and creates nothing")
    func insecureRuntimeFolderIsRefused() throws {
      try withSandbox { sandbox in
        try Self.prepare(sandbox)
        let open = sandbox.root + "/open"
        #expect(mkdir(open, 0o700) == 0)
        #expect(chmod(open, 0o777) == 0)
        let runtime = open + "/run"
        try sandbox.writeService([sandbox.moduleLine(["runtime_dir=" + runtime])])
        let run = try sandbox.pamtester(stdin: "1234\n")
        #expect(run.status != 0)
        #expect(run.verdict == PAMText.verdict("PAM_SYSTEM_ERR"), "\(run.run.stderr)")
        let words = "\(open) is insecure: it is above the runtime folder and writable by group or others without the sticky bit (mode 777)."
        #expect(run.syslog.contains { $0.contains(words) }, "no log line with \(words) in \(run.syslog)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: open).isEmpty)
        // localauthctl refuses the same folder the same way.
        let listed = try Self.ctl(sandbox, ["prompts", sandbox.user, "--runtime-dir", runtime])
        #expect(listed.status == 1)
        #expect(listed.stderr.contains(words), "\(listed.stderr)")
      }
    }
  }
}
