import CPeerCredentials
import CSyscalls

/// Why localauth-helper could not be used, or broke off; the module answers PAM_AUTHINFO_UNAVAIL for the first
/// two (the stack's next line then decides, as without the module) and PAM_SYSTEM_ERR for the last.
public enum HelperCallError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The helper is not installed as it must be: the reason as a clause ("it does not exist").
  case unusable(path: String, reason: String)
  /// The helper could not be started (posix_spawn's errno).
  case spawnFailed(path: String, errno: Int32)
  /// The conversation with the helper broke off.
  case broken(HelperProtocolError)

  public var description: String {
    switch self {
    case .unusable(let path, let reason): "the helper \(path) cannot be used: \(reason)"
    case .spawnFailed(let path, let code): "the helper \(path) could not be started: \(errnoDescription(code))"
    case .broken(let error): "the conversation with the helper broke off: \(error)"
    }
  }
}

/// A running localauth-helper: its pid and our end of the socket that is its standard input.
public struct HelperProcess: Sendable {
  /// The helper's pid.
  public let pid: pid_t
  /// Our end of the socket.
  public let channel: HelperChannel

  /// Why the file at `path` may not be run as the helper, or nil when it is a regular file owned by root with
  /// the set-user-ID bit, not writable by group or others (as unix_chkpwd is installed).
  public static func installationProblem(_ path: String) -> String? {
    var st = stat()
    guard stat(path, &st) == 0 else {
      return currentErrno == ENOENT ? "it does not exist" : "stat failed: \(errnoDescription(currentErrno))"
    }
    guard st.kind == .regular else { return "it is not a regular file" }
    guard st.st_uid == 0 else { return "it is owned by uid \(st.st_uid), not root" }
    let setUserID: mode_t = 0o4000  // S_ISUID
    guard st.st_mode & setUserID != 0 else { return "it is not set-user-ID (install it with mode 4755)" }
    guard st.st_mode & 0o022 == 0 else { return "it is writable by group or others" }
    return nil
  }

  /// Starts the helper with an empty environment, a socket as standard input, /dev/null as standard output and
  /// error, no blocked signals and every handler at its default. With `passCredentials` (an app's session) the
  /// kernel names the sender of every byte the helper reads, so that only this process can talk to it.
  public static func start(_ path: String, passCredentials: Bool = false) throws(HelperCallError) -> HelperProcess {
    if let problem = installationProblem(path) { throw .unusable(path: path, reason: problem) }
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
      throw .spawnFailed(path: path, errno: currentErrno)
    }
    if passCredentials && cpeer_pass_credentials(fds[1]) != 0 {
      let code = currentErrno
      _ = close(fds[0])
      _ = close(fds[1])
      throw .spawnFailed(path: path, errno: code)
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // glibc clears FD_CLOEXEC when a dup2 action's descriptors are equal, so fd 0 survives exec either way.
    posix_spawn_file_actions_adddup2(&actions, fds[1], 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    var all = sigset_t()
    sigemptyset(&none)
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let program = strdup(path)
    defer { free(program) }
    var arguments: [UnsafeMutablePointer<CChar>?] = [program, nil]
    var environment: [UnsafeMutablePointer<CChar>?] = [nil]
    var pid: pid_t = 0
    let status = posix_spawn(&pid, path, &actions, &attributes, &arguments, &environment)
    _ = close(fds[1])
    guard status == 0 else {
      _ = close(fds[0])
      throw .spawnFailed(path: path, errno: status)
    }
    return HelperProcess(pid: pid, channel: HelperChannel(fd: fds[0]))
  }

  /// Closes our end and reaps the helper, killing it if it has not exited within `grace` milliseconds.
  public func finish(grace: Int = 2000) {
    channel.close()
    var status: Int32 = 0
    var waited = 0
    while waited < grace {
      let reaped = waitpid(pid, &status, WNOHANG)
      // ECHILD: the application reaps its children itself (a SIGCHLD handler); nothing is left to do.
      if reaped == pid || (reaped < 0 && currentErrno != EINTR) { return }
      var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
      nanosleep(&pause, nil)
      waited += 5
    }
    _ = kill(pid, SIGKILL)
    while waitpid(pid, &status, 0) < 0 && currentErrno == EINTR {}
  }
}
