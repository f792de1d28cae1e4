#if canImport(Glibc)
import Glibc
#endif

/// How one child process ended, and what it cost.
struct ProcessResult {
  /// Wall time from spawn to reaped, in seconds.
  let seconds: Double
  /// The exit code, or 128 + signal.
  let exitCode: Int32
  /// Peak resident memory (ru_maxrss), in KiB.
  let maxResidentKiB: Double
}

/// Runs child processes with posix_spawn and times them with the monotonic clock: the only overhead
/// between the two timestamps is the spawn and the wait, the same for every command compared.
enum Spawn {
  /// Runs `argv` (argv[0] an absolute path) with exactly `environment`; stdin from `stdinPath`, output to `logPath`.
  static func run(
    _ argv: [String], environment: [String], stdinPath: String = "/dev/null", logPath: String = "/dev/null"
  ) -> ProcessResult {
    let start = monotonicSeconds()
    let pid = spawn(argv, environment: environment, stdinPath: stdinPath, logPath: logPath)
    guard pid > 0 else { return ProcessResult(seconds: 0, exitCode: 127, maxResidentKiB: 0) }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
    let elapsed = monotonicSeconds() - start
    let signal = status & 0x7f
    let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
    return ProcessResult(seconds: elapsed, exitCode: code, maxResidentKiB: Double(usage.ru_maxrss))
  }

  /// posix_spawn of `argv` with exactly `environment`, stdin from `stdinPath`, output to `logPath`; the pid, or 0.
  private static func spawn(_ argv: [String], environment: [String], stdinPath: String, logPath: String) -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let cArgs = argv.map { strdup($0) } + [nil]
    let cEnv = environment.map { strdup($0) } + [nil]
    defer {
      for p in cArgs { free(p) }
      for p in cEnv { free(p) }
    }
    var pid: pid_t = 0
    return posix_spawn(&pid, argv[0], &actions, nil, cArgs, cEnv) == 0 ? pid : 0
  }

  /// Starts `argv` in the background (output discarded) and returns its pid, or 0 when it could not start.
  static func start(_ argv: [String], environment: [String]) -> pid_t {
    spawn(argv, environment: environment, stdinPath: "/dev/null", logPath: "/dev/null")
  }

  /// Waits for a process `start` returned.
  static func reap(_ pid: pid_t) {
    guard pid > 0 else { return }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
  }

  /// Runs a setup command with the current PATH; true when it exits 0.
  @discardableResult
  static func setup(_ argv: [String], stdinPath: String = "/dev/null", logPath: String = "/dev/null") -> Bool {
    run(argv, environment: baseEnvironment, stdinPath: stdinPath, logPath: logPath).exitCode == 0
  }

  /// A small fixed environment, so that runs do not depend on the caller's.
  static let baseEnvironment = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C"]

  /// The first executable named `name` on the standard PATH, or nil.
  static func which(_ name: String) -> String? {
    for folder in ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"] {
      let path = folder + "/" + name
      if access(path, X_OK) == 0 { return path }
    }
    return nil
  }
}
