import Foundation
import LocalAuthTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// docs/RULES.md, rule 7, end to end (issue 27, findings 1–3): the real sudo through the shipped stack and la-app
/// through a setuid copy of localauth-helper, in one interactive shell on one pseudo-terminal. sudo's match is not
/// reused by an app, an app's match does not open sudo, and sudo's own window still serves sudo.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: SudoEnvironment.capable && AppDriver.available, "Needs root, a setuid sudo, python3, la-app and the helper."),
  .enabled(if: LoginSuEnvironment.namespaces, "Needs a private mount namespace (unshare --mount)."))
struct ReusePurposeE2ETests {
  /// SudoTests' fixture with `reuse_duration` for the module, and for la-app a folder every user can read with
  /// a setuid copy of the helper and a copy of /etc/security whose localauth.conf names the fixture's state.
  final class World {
    let sudo: SudoTests.Fixture
    let folder: String
    var helper: String { folder + "/localauth-helper" }
    var security: String { folder + "/security" }

    init(reuse: Int) throws {
      sudo = try SudoTests.Fixture(passcodeFirst: false)
      do { folder = try TemporaryFolder.make("/tmp/localauth-e2e-reuse.XXXXXX", mode: 0o755) } catch {
        sudo.tearDown()
        throw error
      }
      do {
        let rules = "reuse_duration = \(reuse)\n"
        let conf = sudo.folder + "/localauth.conf"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: conf))
        handle.seekToEndOfFile()
        handle.write(Data(rules.utf8))
        try handle.close()
        try LoginSuTests.Command.check("/usr/bin/install", ["-o", "root", "-g", "root", "-m", "4755", Artifacts.helper, helper])
        try LoginSuTests.Command.check("/bin/cp", ["-a", "/etc/security", security])
        let helperConf = "state_dir=\(sudo.state)\ntimeout=5\n" + rules
          + "passcode_after_reboot = no\npasscode_after_enrollment_change = no\nidle_limit = 0\npasscode_max_age = 0\n"
        try helperConf.write(toFile: security + "/localauth.conf", atomically: true, encoding: .utf8)
        chmod(security + "/localauth.conf", 0o644)
      } catch {
        tearDown()
        throw error
      }
    }

    func tearDown() {
      sudo.tearDown()
      TemporaryFolder.remove(folder)
    }

    /// la-app's evaluation as a shell command line: POLICY, a reuse of 300 seconds, and `nointeraction`.
    func app(_ policy: String, interaction: Bool) -> String {
      "\(AppDriver.app) evaluate \(policy) 'open your notes' 300" + (interaction ? "" : " nointeraction")
    }

    /// sudo's command line, as SudoTests runs it.
    static let sudoLine = "\(SudoEnvironment.sudo) -k /bin/sh -c '\(SudoTests.command)'"

    /// Runs an interactive bash as the user on a pseudo-terminal through `steps`, with sudo's stack and drop-in
    /// and the helper's configuration in place, and la-app pointed at the setuid helper.
    func drive(_ steps: [String]) throws -> LoginSuTests.DriveResult {
      guard let entry = getpwnam(SudoTests.userName) else { throw LoginSuTests.SetupError.snippet("the test user") }
      var arguments = ["--mount", "--propagation", "private", LoginSuEnvironment.python, sudo.driver, "--timeout", "40"]
      arguments += ["--bind", sudo.stack + ":" + SudoTests.pamFile, "--bind", sudo.sudoers + ":" + SudoTests.sudoersFolder]
      arguments += ["--bind", security + ":/etc/security"]
      arguments += ["--as", "\(entry.pointee.pw_uid):\(entry.pointee.pw_gid)"] + steps
      arguments += ["--", "/usr/bin/env", "-u", "SSH_CONNECTION", "-u", "SSH_CLIENT", "-u", "SSH_TTY"]
      arguments += ["LOCALAUTH_HELPER=" + helper, "PS1=$ ", "/bin/bash", "--norc", "--noprofile", "-i"]
      return LoginSuTests.DriveResult(try LoginSuTests.Command.run("/usr/bin/unshare", arguments).output)
    }
  }

  static func fingerPrompts(_ run: LoginSuTests.DriveResult) -> Int {
    run.transcript.split(separator: "\n").filter { $0.contains("Place your finger on the sensor") }.count
  }

  @Test("issue 27 (1): sudo with a touch, then an app in the same terminal (reuse 300, interactionNotAllowed): no success")
  func sudoThenApp() throws {
    let world = try World(reuse: 300)
    defer { world.tearDown() }
    let run = try world.drive([
      world.sudo.touchStep(finger: "right-index"), "expect:\\$ $", "send:" + World.sudoLine, "expect:" + SudoTests.rootMarker,
      "send:" + world.app("owner", interaction: false) + "; echo APP-DONE-$((6*7))", "expect:APP-DONE-42",
      "send:" + world.app("biometrics", interaction: false) + "; echo APP2-DONE-$((6*7))", "expect:APP2-DONE-42",
      "send:exit", "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(!run.transcript.contains("evaluate success"), "\(run.transcript)")
    #expect(run.transcript.contains("evaluate error -1004"), "\(run.transcript)")  // notInteractive
    #expect(Self.fingerPrompts(run) == 1, "\(run.transcript)")
  }

  @Test("issue 27 (3): a background job with interactionNotAllowed after the user's sudo: no success")
  func backgroundJobAfterSudo() throws {
    let world = try World(reuse: 300)
    defer { world.tearDown() }
    let run = try world.drive([
      world.sudo.touchStep(finger: "right-index"), "expect:\\$ $", "send:" + World.sudoLine, "expect:" + SudoTests.rootMarker,
      "send:" + world.app("owner", interaction: false) + " & wait; echo BG-DONE-$((6*7))", "expect:BG-DONE-42",
      "send:exit", "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(!run.transcript.contains("evaluate success"), "\(run.transcript)")
    #expect(run.transcript.contains("evaluate error"), "\(run.transcript)")
  }

  @Test("issue 27 (2): with reuse_duration 120, an app's match then `sudo -k` asks again; sudo then sudo is reused")
  func appThenSudoAndSudoThenSudo() throws {
    let world = try World(reuse: 120)
    defer { world.tearDown() }
    // The app's prompt and sudo's each get a touch; a second sudo reuses sudo's match.
    let run = try world.drive([
      world.sudo.touchStep(finger: "right-index", count: 2), "expect:\\$ $",
      "send:" + world.app("biometrics", interaction: true) + "; echo APP-DONE-$((6*7))", "expect:APP-DONE-42",
      // The app's prompt ended a moment ago: sudo, another program, waits out the two seconds (RecentPrompt).
      "sleep:2.1",
      "send:" + World.sudoLine + "; echo SUDO1-DONE-$((6*7))", "expect:SUDO1-DONE-42",
      "send:" + World.sudoLine + "; echo SUDO2-DONE-$((6*7))", "expect:SUDO2-DONE-42",
      "send:exit", "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.transcript.contains("evaluate success"), "\(run.transcript)")
    // The app's prompt and the first sudo's: two finger prompts; the second sudo reused the first's match.
    #expect(Self.fingerPrompts(run) == 2, "\(run.transcript)")
    #expect(run.transcript.components(separatedBy: SudoTests.rootMarker).count - 1 >= 2, "\(run.transcript)")
  }
}
