import Foundation
import Testing

/// `check-config` warns where the kernel lets a user's programs trace each other (Yama absent, or
/// kernel.yama.ptrace_scope 0), and says nothing once Yama restricts it (issue 37; docs/THREATS.md).
@Suite(.serialized, .enabled(if: CLIRunner.isRoot, "needs root: the scope file is read the module's safe way"))
struct PtraceReachTests {
  /// check-config's standard error with Yama's file holding `contents` (nil: no such file), and its status.
  func checkConfig(scopeFile contents: String?) throws -> (stderr: String, stdout: String, status: Int32, path: String) {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    let path = cli.folder + "/yama/ptrace_scope"
    if let contents {
      try FileManager.default.createDirectory(atPath: cli.folder + "/yama", withIntermediateDirectories: false)
      try cli.write(contents, to: path, mode: 0o644)
    }
    let result = try cli.run(["check-config", "--ptrace-scope-file", path, "timeout=5"], stateDir: false)
    return (result.stderr, result.stdout, result.status, path)
  }

  @Test func yamaAbsentIsAWarningWithTheCostAndTheFix() throws {
    let run = try checkConfig(scopeFile: nil)
    #expect(run.status == 0, "a warning, not an error")
    #expect(run.stdout.contains("timeout=5\n"), "the options are still printed")
    let lines = run.stderr.split(separator: "\n")
    #expect(lines.count == 1, "one line: \(run.stderr)")
    #expect(
      run.stderr.hasPrefix(
        "Warning: The kernel lets a user's programs trace each other: Yama is absent (\(run.path) does not exist). "))
    for part in [
      "inject code into a system program of that user", "a terminal emulator, tmux, a screen locker",
      "a touch may approve what the injected code asks", "kernel.yama.ptrace_scope = 1 or higher", "/etc/sysctl.d",
      "CONFIG_SECURITY_YAMA", "gdb -p and strace -p of another process need root",
    ] {
      #expect(run.stderr.contains(part), "\(part)")
    }
  }

  @Test func scopeZeroIsAWarning() throws {
    let run = try checkConfig(scopeFile: "0\n")
    #expect(run.status == 0)
    #expect(
      run.stderr.hasPrefix("Warning: The kernel lets a user's programs trace each other: kernel.yama.ptrace_scope is 0. "),
      "\(run.stderr)")
    #expect(run.stderr.contains("kernel.yama.ptrace_scope = 1 or higher in a file of /etc/sysctl.d"))
  }

  @Test(arguments: ["1\n", "2\n", "3\n", "3"])
  func scopeOneOrHigherSaysNothing(_ contents: String) throws {
    let run = try checkConfig(scopeFile: contents)
    #expect(run.status == 0)
    #expect(run.stderr == "", "nothing to say with ptrace_scope \(contents)")
    #expect(run.stdout.contains("timeout=5\n"))
  }

  @Test func anUnreadableOrStrangeFileIsAWarningToo() throws {
    let garbage = try checkConfig(scopeFile: "x\n")
    #expect(garbage.status == 0)
    #expect(
      garbage.stderr.hasPrefix(
        "Warning: Whether the kernel lets a user's programs trace each other is unknown (\(garbage.path) holds \"x\", not a number). "),
      "\(garbage.stderr)")
    let negative = try checkConfig(scopeFile: "-1\n")
    #expect(negative.stderr.hasPrefix("Warning: Whether the kernel lets a user's programs trace each other is unknown"))
  }

  @Test func theOptionIsHiddenFromHelp() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    let help = try cli.run(["check-config", "--help"], stateDir: false)
    #expect(help.status == 0)
    #expect(!help.stdout.contains("ptrace-scope-file"))
    #expect(help.stdout.contains("kernel.yama.ptrace_scope"))
  }
}
