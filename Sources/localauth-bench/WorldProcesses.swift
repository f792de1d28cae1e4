import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// The world's processes: started with posix_spawn (signal mask cleared, default dispositions), ended by pid.
final class WorldProcesses {
  private var started: [BackgroundProcess] = []

  /// Starts `argv` (argv[0] absolute) with exactly `environment`, output to `log`.
  func start(_ name: String, _ argv: [String], environment: [String], log: String, stdinPath: String = "/dev/null") throws -> BackgroundProcess {
    let process = try BackgroundProcess(name: name, argv, environment: environment, log: log, stdinPath: stdinPath)
    started.append(process)
    return process
  }

  /// Ends every process started, the last first (fprintd before polkit before the bus).
  func stopAll() {
    for process in started.reversed() { process.stop() }
    started = []
  }

  // MARK: Interruption

  /// Pids of running world processes, for the signal handler (fixed slots: no allocation in the handler).
  nonisolated(unsafe) static var live = [pid_t](repeating: 0, count: 32)
  nonisolated(unsafe) private static var previous: (interrupt: __sighandler_t?, terminate: __sighandler_t?)?

  /// While the figure runs, SIGINT and SIGTERM first kill the world's processes, then go to the bench's handler.
  static func arm() {
    let handler: @convention(c) (Int32) -> Void = { signal in
      for pid in WorldProcesses.live where pid > 0 { _ = kill(pid, SIGKILL) }
      let before = WorldProcesses.previous
      _ = Glibc.signal(signal, signal == SIGINT ? before?.interrupt ?? SIG_DFL : before?.terminate ?? SIG_DFL)
      _ = raise(signal)
    }
    let interrupt = signal(SIGINT, handler)
    let terminate = signal(SIGTERM, handler)
    previous = (interrupt, terminate)
  }

  /// Puts the bench's own handlers back.
  static func disarm() {
    guard let before = previous else { return }
    signal(SIGINT, before.interrupt)
    signal(SIGTERM, before.terminate)
    previous = nil
  }

  static func track(_ pid: pid_t) {
    if let slot = live.firstIndex(of: 0) { live[slot] = pid }
  }

  static func untrack(_ pid: pid_t) {
    if let slot = live.firstIndex(of: pid) { live[slot] = 0 }
  }
}

/// One child process in the background.
final class BackgroundProcess {
  let name: String
  let pid: pid_t
  let log: String
  /// The exit code (or 128 + signal) once reaped.
  private(set) var exitCode: Int32?

  init(name: String, _ argv: [String], environment: [String], log: String, stdinPath: String) throws {
    self.name = name
    self.log = log
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // A child inherits the signal mask and ignored signals: start each with none blocked and the defaults.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let cArgs = argv.map { strdup($0) } + [nil]
    let cEnv = environment.map { strdup($0) } + [nil]
    defer {
      for p in cArgs { free(p) }
      for p in cEnv { free(p) }
    }
    var child: pid_t = 0
    let spawned = posix_spawn(&child, argv[0], &actions, &attributes, cArgs, cEnv)
    guard spawned == 0 else { throw SetupError("Cannot start \(name) (\(argv[0])): \(errnoDescription(spawned)).") }
    pid = child
    WorldProcesses.track(child)
  }

  /// True once the process has ended (reaping it).
  func hasExited() -> Bool {
    if exitCode != nil { return true }
    var status: Int32 = 0
    let r = waitpid(pid, &status, WNOHANG)
    if r == 0 { return false }
    reaped(r == pid ? status : 0x7f)
    return true
  }

  /// Waits up to `timeout` seconds for the process to end by itself: its exit code, or nil if it still runs.
  func wait(timeout: Double) -> Int32? {
    let deadline = monotonicSeconds() + timeout
    while !hasExited() {
      if monotonicSeconds() > deadline { return nil }
      usleep(2_000)
    }
    return exitCode
  }

  /// SIGKILL to the process and its descendants (found before any dies), then reaps it. Safe to call twice.
  func stop() {
    guard !hasExited() else { return }
    let family = Self.descendants(of: pid) + [pid]
    for member in family { _ = kill(member, SIGKILL) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    reaped(status)
    // Descendants are not ours to reap: wait (at most 5 s) until they are gone or zombies of init.
    let deadline = monotonicSeconds() + 5
    while monotonicSeconds() < deadline, family.dropLast().contains(where: Self.alive) { usleep(5_000) }
  }

  private func reaped(_ status: Int32) {
    let signal = status & 0x7f
    exitCode = signal == 0 ? (status >> 8) & 0xff : 128 + signal
    WorldProcesses.untrack(pid)
  }

  /// The state letter and parent of `pid`, from /proc/PID/stat.
  private static func stat(_ pid: pid_t) -> (state: Substring, parent: pid_t)? {
    guard let text = readText("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 1, let parent = pid_t(fields[1]) else { return nil }
    return (fields[0], parent)
  }

  static func alive(_ pid: pid_t) -> Bool {
    guard let state = stat(pid)?.state else { return false }
    return state != "Z" && state != "X"
  }

  /// Every descendant of `pid`, from /proc.
  static func descendants(of pid: pid_t) -> [pid_t] {
    var children: [pid_t: [pid_t]] = [:]
    guard let directory = opendir("/proc") else { return [] }
    defer { closedir(directory) }
    while let entry = readdir(directory) {
      let name = withUnsafePointer(to: &entry.pointee.d_name) {
        String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
      }
      guard let child = pid_t(name), let parent = stat(child)?.parent else { continue }
      children[parent, default: []].append(child)
    }
    var result: [pid_t] = []
    var queue = children[pid] ?? []
    while let next = queue.popLast() {
      result.append(next)
      queue += children[next] ?? []
    }
    return result
  }
}
