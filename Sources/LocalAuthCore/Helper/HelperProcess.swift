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
  package let pid: Int32
  /// Our end of the socket.
  package let channel: HelperChannel

  /// Why the file at `path` may not be run as the helper, or nil when it is a regular file owned by root with
  /// the set-user-ID bit, not writable by group or others (as unix_chkpwd is installed).
  package static func installationProblem(_ path: String) -> String? {
    let st: FileSyscalls.Status
    switch Syscalls.status(ofPath: path, followingLink: true) {
    case .success(let found): st = found
    case .failure(let error):
      return error == .noEntry ? "it does not exist" : "stat failed: \(errnoDescription(error.code))"
    }
    guard st.kind == .regular else { return "it is not a regular file" }
    guard st.owner == 0 else { return "it is owned by uid \(st.owner), not root" }
    let setUserID: UInt32 = 0o4000  // S_ISUID
    guard st.mode & setUserID != 0 else { return "it is not set-user-ID (install it with mode 4755)" }
    guard st.mode & 0o022 == 0 else { return "it is writable by group or others" }
    return nil
  }

  /// Starts the helper with an empty environment, a socket as standard input, /dev/null as standard output and
  /// error, no blocked signals and every handler at its default. With `passCredentials` (an app's session) the
  /// kernel names the sender of every byte the helper reads, so that only this process can talk to it.
  package static func start(_ path: String, passCredentials: Bool = false) throws(HelperCallError) -> HelperProcess {
    if let problem = installationProblem(path) { throw .unusable(path: path, reason: problem) }
    let (ours, theirs): (Int32, Int32)
    switch Syscalls.socketPair() {
    case .success(let pair): (ours, theirs) = pair
    case .failure(let error): throw .spawnFailed(path: path, errno: error.code)
    }
    if passCredentials, case .failure(let error) = Syscalls.passCredentials(theirs) {
      Syscalls.close(ours)
      Syscalls.close(theirs)
      throw .spawnFailed(path: path, errno: error.code)
    }
    let spawned = Syscalls.spawn(path, input: theirs)
    Syscalls.close(theirs)
    switch spawned {
    case .success(let pid): return HelperProcess(pid: pid, channel: HelperChannel(fd: ours))
    case .failure(let error):
      Syscalls.close(ours)
      throw .spawnFailed(path: path, errno: error.code)
    }
  }

  /// Closes our end and reaps the helper, killing it if it has not exited within `grace` milliseconds.
  package func finish(grace: Int = 2000) {
    channel.close()
    var waited = 0
    while waited < grace {
      // ECHILD: the application reaps its children itself (a SIGCHLD handler); nothing is left to do.
      guard case .success(false) = Syscalls.reap(pid, waiting: false) else { return }
      Syscalls.sleep(0.005)
      waited += 5
    }
    _ = Syscalls.forceKill(pid)
    _ = Syscalls.reap(pid, waiting: true)
  }
}
