import CSyscalls

/// What a setuid program must undo of what its caller gave it (descriptors, environment, umask, limits).
enum ProcessHygiene {
  /// Closes inherited descriptors, makes sure 1 and 2 are open (on /dev/null), clears the environment, sets a
  /// private umask and the root folder as working folder. The resource limits are `ResourceLimits`.
  static func apply() {
    if csyscalls_close_from(3) != 0 {
      for fd in Int32(3)..<Int32(1024) { _ = close(fd) }
    }
    for fd in Int32(1)...Int32(2) {
      var st = stat()
      if fstat(fd, &st) != 0 {
        let null = csyscalls_open("/dev/null", O_RDWR, 0)
        if null >= 0 && null != fd {
          _ = dup2(null, fd)
          _ = close(null)
        }
      }
    }
    _ = clearenv()
    _ = umask(0o077)
    _ = chdir("/")
  }

  /// True when standard input is a socket and not a terminal: pam_localauth's socket pair.
  static func standardInputIsSocket() -> Bool {
    var st = stat()
    guard fstat(0, &st) == 0, isatty(0) == 0 else { return false }
    let kind: mode_t = 0o170000, socket: mode_t = 0o140000  // S_IFMT, S_IFSOCK
    return st.st_mode & kind == socket
  }
}
