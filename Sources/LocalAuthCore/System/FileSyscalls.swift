import CSyscalls

// Part of the C fence (Syscalls.swift): the state folder's files. Every open is O_NOFOLLOW|O_CLOEXEC, every
// owner and mode is checked, and every failure becomes a `StateError` here (EACCES and EPERM as
// `.permissionDenied`, any other errno as `.io`), so the files outside System/ never see an errno.

/// A hook that makes a named file operation fail with an errno, for fault-injection tests (debug builds only).
#if DEBUG
nonisolated(unsafe) package var fileFaultInjector: ((_ operation: String, _ path: String) -> Int32?)? = nil
#endif

@inline(__always)
private func injectedFault(_ operation: String, _ path: String) -> Int32? {
  #if DEBUG
  return fileFaultInjector?(operation, path)
  #else
  return nil
  #endif
}

/// The text of an errno value, as strerror gives it.
package func errnoDescription(_ code: Int32) -> String {
  guard let text = strerror(code) else { return "errno \(code)" }
  return String(cString: text)
}

/// Runs a call that returns -1 on failure, retrying on EINTR; returns the result or throws `.io`.
@discardableResult
func retryingSyscall(_ operation: String, _ path: String, _ call: () -> Int32) throws(StateError) -> Int32 {
  if let code = injectedFault(operation, path) { throw .io(path: path, operation: operation, errno: code) }
  return try valueOrErrno(call).stateError(operation, path)
}

extension Result where Failure == Errno {
  /// The value, or the errno as the fence reports it: `.permissionDenied` for EACCES and EPERM, `.io` otherwise.
  func stateError(_ operation: String, _ path: String) throws(StateError) -> Success {
    switch self {
    case .success(let value): return value
    case .failure(let error):
      if error.deniesPermission { throw .permissionDenied(path: path) }
      throw .io(path: path, operation: operation, errno: error.code)
    }
  }
}

/// The uid state files and folders must belong to.
package let trustedOwner: uid_t = 0

/// File-system operations for the state folder, with the safety checks applied in one place.
package enum FileSyscalls {
  /// What stat(2) says of a file, as far as the core needs.
  struct Status {
    /// The type of file.
    var kind: FileKind
    /// The owner's uid.
    var owner: UInt32
    /// The permission bits (st_mode & 0o7777).
    var mode: UInt32
    /// The size in bytes.
    var size: Int
    /// The number of hard links (st_nlink): a trusted file has exactly one name.
    var linkCount: Int = 1
    /// The device the file is on.
    var device: UInt64 = 0
    /// The file's inode.
    var inode: UInt64 = 0
    /// The modification time: seconds since 1970, and nanoseconds.
    var modified: (seconds: Int64, nanoseconds: Int64) = (0, 0)
    /// st_mode whole: the type and permission bits.
    var typeAndMode: UInt32 = 0

    var isDirectory: Bool { kind == .directory }
    var isRegular: Bool { kind == .regular }
  }

  static func status(of fd: Int32, path: String) throws(StateError) -> Status {
    if let code = injectedFault("stat", path) { throw .io(path: path, operation: "stat", errno: code) }
    return try Syscalls.status(of: fd).stateError("stat", path)
  }

  static func status(_ st: stat) -> Status {
    Status(
      kind: st.kind, owner: UInt32(st.st_uid), mode: UInt32(st.st_mode & 0o7777), size: Int(st.st_size),
      linkCount: Int(st.st_nlink), device: UInt64(st.st_dev), inode: UInt64(st.st_ino),
      modified: (Int64(st.st_mtim.tv_sec), Int64(st.st_mtim.tv_nsec)), typeAndMode: UInt32(st.st_mode))
  }

  /// Checks that an open file or folder is owned by root and not writable by group or others.
  static func checkTrusted(_ status: Status, path: String) throws(StateError) {
    guard status.owner == trustedOwner else {
      throw .insecure(path: path, reason: "it is owned by uid \(status.owner), not root")
    }
    guard status.mode & 0o022 == 0 else {
      throw .insecure(path: path, reason: "it is writable by group or others (mode \(String(status.mode, radix: 8)))")
    }
  }

  /// Opens a path without following a final symbolic link; nil when it does not exist.
  ///
  /// O_NONBLOCK keeps a FIFO planted in place of a file from hanging the open; the type check that follows
  /// refuses it. It changes nothing for regular files and folders.
  static func openNoFollow(_ path: String, flags: Int32, mode: mode_t = 0o600) throws(StateError) -> Int32? {
    if let code = injectedFault("open", path) { throw .io(path: path, operation: "open", errno: code) }
    let opened = valueOrErrno { csyscalls_open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, mode) }
    guard case .failure(let error) = opened else { return try opened.stateError("open", path) }
    switch error.code {
    case ENOENT: return nil
    case ELOOP: throw .insecure(path: path, reason: "it is a symbolic link")
    case ENOTDIR where flags & O_DIRECTORY != 0:
      // O_DIRECTORY is checked before O_NOFOLLOW: a link to a folder fails with ENOTDIR, not ELOOP.
      let isLink = (try? Syscalls.status(ofPath: path).get())?.kind == .symbolicLink
      throw .insecure(path: path, reason: isLink ? "it is a symbolic link" : "it is not a directory")
    default: return try opened.stateError("open", path)
    }
  }

  /// The open flags the rest of the core passes to `openNoFollow` (O_NOFOLLOW and O_CLOEXEC are always added).
  enum Access {
    /// O_RDONLY.
    static let readOnly = O_RDONLY
    /// O_RDWR.
    static let readWrite = O_RDWR
  }

  /// Reads a whole trusted regular file of at most `limit` bytes; nil when it does not exist.
  package static func readTrustedFile(_ path: String, limit: Int) throws(StateError) -> [UInt8]? {
    var attempts = 0
    while true {
      guard let fd = try openNoFollow(path, flags: O_RDONLY) else { return nil }
      defer { close(fd) }
      let status = try status(of: fd, path: path)
      guard status.isRegular else { throw .insecure(path: path, reason: "it is not a regular file") }
      try checkTrusted(status, path: path)
      // No name left: a writer renamed a new record over this one between our open and fstat. What was opened
      // is stale, not unsafe: open the new one (a few times at most, then it is refused as below).
      attempts += 1
      if status.linkCount == 0 && attempts < 8 { continue }
      // A second name elsewhere (a hard link made before the file was ours, or into a folder we do not check)
      // is a way to change or keep the file behind the checks; our own writes (rename) always leave one.
      guard status.linkCount == 1 else { throw .insecure(path: path, reason: "it has \(status.linkCount) hard links") }
      guard status.size <= limit else { throw .tooLarge(path: path, limit: limit) }
      return try readAll(fd, path: path, limit: limit, expectedSize: status.size, regularFile: true)
    }
  }

  /// Reads to the end of `fd`, refusing more than `limit` bytes. The buffer starts at `expectedSize` (from fstat)
  /// plus one byte, so that a file read whole is seen to end by the next read, and doubles if the file grew.
  ///
  /// For a `regularFile`, a read that leaves the buffer short after exactly `expectedSize` bytes has met the end
  /// (a regular file reads short only there), so no second read is made to see it; a file that grew after fstat
  /// fills the extra byte and is read on to its end as before.
  static func readAll(
    _ fd: Int32, path: String, limit: Int, expectedSize: Int = 255, regularFile: Bool = false
  ) throws(StateError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: min(max(expectedSize, 0), limit) + 1)
    var filled = 0
    while true {
      if filled == bytes.count {
        // filled <= limit here, so the buffer is at most limit bytes and may grow.
        bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, limit + 1 - bytes.count)))
      }
      if let code = injectedFault("read", path) { throw .io(path: path, operation: "read", errno: code) }
      let count: Int
      switch bytes.withUnsafeMutableBytes({ Syscalls.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }) {
      case .success(let read): count = read
      case .failure(let error): throw .io(path: path, operation: "read", errno: error.code)
      }
      if count == 0 {
        bytes.removeLast(bytes.count - filled)
        return bytes
      }
      filled += count
      guard filled <= limit else { throw .tooLarge(path: path, limit: limit) }
      if regularFile && filled == expectedSize && filled < bytes.count {
        bytes.removeLast(bytes.count - filled)
        return bytes
      }
    }
  }

  /// Checks a folder: a real directory (not a link), owned by root, not writable by group or others.
  ///
  /// One lstat, as for the folders above it: the check is of the path at this moment either way (what is
  /// opened later is opened by its path, without following a link), and an open, fstat and close cost three
  /// system calls on every authentication.
  package static func checkTrustedDirectory(_ path: String) throws(StateError) {
    if let code = injectedFault("open", path) { throw .io(path: path, operation: "open", errno: code) }
    let found = Syscalls.status(ofPath: path)
    if case .failure(let error) = found, error == .noEntry { throw .io(path: path, operation: "open", errno: ENOENT) }
    let status = try found.stateError("stat", path)
    if status.kind == .symbolicLink { throw .insecure(path: path, reason: "it is a symbolic link") }
    guard status.kind == .directory else { throw .insecure(path: path, reason: "it is not a directory") }
    try checkTrusted(status, path: path)
  }

  /// Creates a folder with `mode` if it is missing, then checks it is trusted.
  package static func ensureDirectory(_ path: String, mode: mode_t = 0o700) throws(StateError) {
    if let code = injectedFault("mkdir", path) { throw .io(path: path, operation: "create", errno: code) }
    if mkdir(path, mode) != 0 && currentErrno != EEXIST {
      let code = currentErrno
      if code == EACCES || code == EPERM { throw .permissionDenied(path: path) }
      throw .io(path: path, operation: "create", errno: code)
    }
    try checkTrustedDirectory(path)
  }

  /// Writes `bytes` to `directory/name` atomically: temporary file, fsync, rename, fsync of the folder.
  ///
  /// `flushFolder: false` leaves out the last fsync, so that the rename may be lost to a power failure, though the
  /// file is never torn. With `flushFile: false` as well nothing waits for the disk, for files whose loss or damage
  /// is harmless: the prompts' announcements and events (which do not outlive a boot) and a user's success note
  /// (SuccessNote.swift).
  ///
  /// A caller that holds a lock for `name` passes a fixed `temporaryName`, so a writer killed mid-write
  /// leaves at most one stale temporary file, which the next writer replaces.
  package static func atomicWrite(
    _ bytes: [UInt8], directory: String, name: String, temporaryName: String? = nil, flushFolder: Bool = true,
    flushFile: Bool = true
  ) throws(StateError) {
    let target = directory + "/" + name
    let temporary = directory + "/" + (temporaryName ?? ".\(name).\(getpid()).tmp")
    unlink(temporary)
    guard let fd = try openNoFollow(temporary, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600) else {
      throw .io(path: temporary, operation: "create", errno: ENOENT)
    }
    var isOpen = true
    defer { if isOpen { close(fd) } }
    do throws(StateError) {
      if let code = injectedFault("write", temporary) { throw .io(path: temporary, operation: "write", errno: code) }
      if case .failure(let error) = Syscalls.writeAll(fd, bytes) {
        throw .io(path: temporary, operation: "write", errno: error.code)
      }
      if flushFile { try retryingSyscall("fsync", temporary) { fsync(fd) } }
      close(fd)
      isOpen = false
      try retryingSyscall("rename", target) { rename(temporary, target) }
    } catch {
      unlink(temporary)
      throw error
    }
    if flushFolder { try syncDirectory(directory) }
  }

  /// Flushes a folder's entries to disk, so that a rename survives a crash.
  static func syncDirectory(_ path: String) throws(StateError) {
    guard let fd = try openNoFollow(path, flags: O_RDONLY | O_DIRECTORY) else { return }
    defer { close(fd) }
    try retryingSyscall("fsync", path) { fsync(fd) }
  }

  /// Removes a file; a missing file is not an error.
  package static func remove(_ path: String) throws(StateError) {
    if let code = injectedFault("unlink", path) { throw .io(path: path, operation: "unlink", errno: code) }
    if unlink(path) != 0 && currentErrno != ENOENT {
      let code = currentErrno
      if code == EACCES || code == EPERM { throw .permissionDenied(path: path) }
      throw .io(path: path, operation: "remove", errno: code)
    }
  }

  /// The names in a folder, without "." and "..".
  package static func listDirectory(_ path: String) throws(StateError) -> [String] {
    if let code = injectedFault("list", path) { throw .io(path: path, operation: "list", errno: code) }
    let names = Syscalls.directoryNames(path)
    if case .failure(let error) = names, error == .noEntry { return [] }
    return try names.stateError("list", path)
  }

  /// The longest wait for a lock, in seconds, before it fails closed with `.lockTimeout` (docs/RELIABILITY.md).
  package static let lockWaitSeconds = 5

  /// Takes an exclusive flock on `path` (created 0600 if missing), waiting at most `seconds`; the lock ends
  /// when the value is released.
  ///
  /// In a setuid host run by another user, the wait and the hold are an `UnstoppableSection`: the caller
  /// cannot stop the process while it holds the lock (docs/RELIABILITY.md).
  package static func lockExclusive(_ path: String, waitingAtMost seconds: Int = lockWaitSeconds) throws(StateError) -> FileLock {
    guard let fd = try openNoFollow(path, flags: O_RDWR | O_CREAT, mode: 0o600) else {
      throw .io(path: path, operation: "create", errno: ENOENT)
    }
    let section = UnstoppableSection.enter()
    do throws(StateError) {
      let status = try status(of: fd, path: path)
      guard status.isRegular else { throw .insecure(path: path, reason: "it is not a regular file") }
      try checkTrusted(status, path: path)
      try waitForLock(fd, path: path, seconds: seconds)
    } catch {
      close(fd)
      section.leave()
      throw error
    }
    return FileLock(fd: fd, section: section)
  }

  /// Polls flock(LOCK_EX|LOCK_NB) until it succeeds or `seconds` pass on CLOCK_MONOTONIC, then names the holder.
  ///
  /// A blocking flock would wait for ever on a holder that was stopped (SIGSTOP, a debugger) or hangs; polling
  /// backs off from 1 ms to 20 ms, so a lock released after a few milliseconds is taken about as soon.
  static func waitForLock(_ fd: Int32, path: String, seconds: Int) throws(StateError) {
    if let code = injectedFault("lock", path) { throw .io(path: path, operation: "lock", errno: code) }
    let deadline = Syscalls.monotonicSeconds() + Double(seconds)
    var pause: Double = 0.001
    while true {
      switch valueOrErrno({ flock(fd, LOCK_EX | LOCK_NB) }) {
      case .success: return
      case .failure(let error) where error == .wouldBlock: break  // EWOULDBLOCK: another open file description holds it
      case let failed: _ = try failed.stateError("lock", path)
      }
      let left = deadline - Syscalls.monotonicSeconds()
      guard left > 0 else {
        throw .lockTimeout(path: path, seconds: seconds, holder: LockHolder.find(forLockedFile: fd))
      }
      Syscalls.sleep(min(pause, left))
      pause = min(pause * 2, 0.02)
    }
  }
}

/// An exclusive flock held until `release()` or deinit.
package final class FileLock {
  private var fd: Int32
  /// What makes the holder unstoppable by its caller; left once the lock is released.
  private let section: UnstoppableSection

  init(fd: Int32, section: UnstoppableSection) {
    self.fd = fd
    self.section = section
  }

  /// Releases the lock now, then lets the caller stop the process again.
  package func release() {
    guard fd >= 0 else { return }
    flock(fd, LOCK_UN)
    close(fd)
    fd = -1
    section.leave()
  }

  deinit { release() }
}

/// Reads a small file that needs no ownership checks (such as /proc entries).
func readSmallFile(_ path: String, limit: Int) throws(StateError) -> [UInt8] {
  guard let fd = try FileSyscalls.openNoFollow(path, flags: O_RDONLY) else {
    throw .io(path: path, operation: "open", errno: ENOENT)
  }
  defer { close(fd) }
  return try FileSyscalls.readAll(fd, path: path, limit: limit)
}

extension String {
  /// The string without leading and trailing spaces, tabs and newlines.
  func trimmingWhitespace() -> String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
      return ""
    }
    return String(self[first...last])
  }
}
