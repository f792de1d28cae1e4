import CSyscalls

// Part of the C fence (Syscalls.swift): starting localauth-helper (posix_spawn), reaping and killing it.

extension Syscalls {
  /// Starts the program at `path` with its path as its only argument, an empty environment, `input` as its
  /// standard input, /dev/null as standard output and error, no blocked signals and every handler at its default
  /// (posix_spawn(3)); its pid, or the error number posix_spawn returned.
  static func spawn(_ path: String, input: Int32) -> Result<Int32, Errno> {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // glibc clears FD_CLOEXEC when a dup2 action's descriptors are equal, so fd 0 survives exec either way.
    posix_spawn_file_actions_adddup2(&actions, input, 0)
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
    return status == 0 ? .success(pid) : .failure(Errno(code: status))
  }

  /// Reaps the child `pid` (waitpid(2)): waits for it to exit when `waiting`, else only looks; true when it was
  /// reaped, false when it is still running. ECHILD when it is not this process's child to reap (the application
  /// reaps its children itself, with a SIGCHLD handler).
  static func reap(_ pid: Int32, waiting: Bool) -> Result<Bool, Errno> {
    var status: Int32 = 0
    return valueOrErrno { waitpid(pid, &status, waiting ? 0 : WNOHANG) }.map { $0 == pid }
  }

  /// Sends SIGKILL to `pid` (kill(2)).
  static func forceKill(_ pid: Int32) -> Result<Void, Errno> {
    valueOrErrno { kill(pid, SIGKILL) }.map { _ in () }
  }
}
