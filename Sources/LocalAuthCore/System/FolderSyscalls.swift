import CSyscalls

// Part of the C fence (Syscalls.swift, FileSyscalls.swift): the folder operations the prompt registry needs —
// create exactly once, claim a file exactly once, remove a folder, a prompt's doorbell, and folder watches.

extension FileSyscalls {
  /// Creates a root-owned folder with `mode`; false when it already exists (nothing is checked then).
  package static func createDirectory(_ path: String, mode: mode_t = 0o700) throws(StateError) -> Bool {
    if mkdir(path, mode) != 0 {
      let code = currentErrno
      if code == EEXIST { return false }
      if code == EACCES || code == EPERM { throw .permissionDenied(path: path) }
      throw .io(path: path, operation: "create", errno: code)
    }
    try checkTrustedDirectory(path)
    return true
  }

  /// Removes a file and says whether this call removed it: of several processes claiming the same file,
  /// exactly one gets true.
  package static func claim(_ path: String) throws(StateError) -> Bool {
    if unlink(path) == 0 { return true }
    let code = currentErrno
    if code == ENOENT { return false }
    if code == EACCES || code == EPERM { throw .permissionDenied(path: path) }
    throw .io(path: path, operation: "remove", errno: code)
  }

  /// Gives the file at `source` the name `target` too, only when `target` does not exist yet: of several
  /// processes placing a file at the same name, exactly one gets true. nil when the folder is gone.
  package static func linkExclusive(_ source: String, to target: String) throws(StateError) -> Bool? {
    if link(source, target) == 0 { return true }
    let code = currentErrno
    if code == EEXIST { return false }
    if code == ENOENT { return nil }
    if code == EACCES || code == EPERM { throw .permissionDenied(path: target) }
    throw .io(path: target, operation: "create", errno: code)
  }

  /// Renames a folder into place; false when `target` already exists.
  package static func renameDirectory(_ source: String, to target: String) throws(StateError) -> Bool {
    if exists(target) { return false }
    try retryingSyscall("rename", target) { rename(source, target) }
    return true
  }

  /// True when `path` names an existing entry (not followed through a symbolic link).
  package static func exists(_ path: String) -> Bool {
    if case .success = Syscalls.status(ofPath: path) { return true }
    return false
  }

  /// Removes an empty folder; true when it is gone, false when it is not empty.
  package static func removeDirectory(_ path: String) throws(StateError) -> Bool {
    if rmdir(path) == 0 { return true }
    let code = currentErrno
    if code == ENOENT { return true }
    if code == ENOTEMPTY || code == EEXIST { return false }
    if code == EACCES || code == EPERM { throw .permissionDenied(path: path) }
    throw .io(path: path, operation: "remove", errno: code)
  }

  /// The start time of process `pid` in clock ticks since boot (field 22 of /proc/PID/stat); nil when there
  /// is no such process.
  package static func processStartTime(_ pid: Int32) -> UInt64? {
    guard pid > 0, let bytes = try? readSmallFile("/proc/\(pid)/stat", limit: 4096) else { return nil }
    // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ")".
    guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
    let rest = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
    // rest[0] is field 3 (state), so field 22 is rest[19].
    guard rest.count > 19 else { return nil }
    return UInt64(String(decoding: rest[19], as: UTF8.self))
  }
}

/// A prompt's doorbell: a FIFO in its folder that whoever presents an event rings, so that the prompt wakes at
/// once without polling. Unlike an inotify descriptor, it costs nothing to close (closing inotify waits for the
/// kernel's SRCU grace period, about 15 ms, on every authentication).
package final class PromptDoorbell {
  /// The descriptor to wait on (readable once rung), or -1 when the FIFO could not be opened (the waiter polls).
  package let descriptor: Int32

  /// Makes the FIFO at `path` (root's, 0600); false when it already exists.
  package static func install(_ path: String) throws(StateError) {
    if mkfifo(path, 0o600) != 0 { throw .io(path: path, operation: "create", errno: currentErrno) }
  }

  /// Opens the doorbell at `path` to listen. Read-write, so that the FIFO always has a writer and never reports
  /// a hang-up; a FIFO that is not root's or not a FIFO is not listened to.
  package init(listeningAt path: String) {
    descriptor = Self.open(path, flags: O_RDWR) ?? -1
  }

  /// Rings the doorbell at `path`; nothing happens when nobody listens or it is not a trusted FIFO.
  package static func ring(_ path: String) {
    guard let fd = open(path, flags: O_WRONLY) else { return }
    var byte: UInt8 = 1
    _ = write(fd, &byte, 1)
    close(fd)
  }

  /// Reads and drops the rings so far, so that the next wait blocks again.
  package func drain() {
    guard descriptor >= 0 else { return }
    var buffer = [UInt8](repeating: 0, count: 64)
    while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
  }

  deinit { if descriptor >= 0 { close(descriptor) } }

  private static func open(_ path: String, flags: Int32) -> Int32? {
    let fd = csyscalls_open(path, flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0)
    guard fd >= 0 else { return nil }
    guard case .success(let info) = Syscalls.status(of: fd), info.kind == .fifo, info.owner == trustedOwner,
      info.mode & 0o077 == 0
    else {
      close(fd)
      return nil
    }
    return fd
  }
}

/// Wakes a waiter as soon as an entry is moved into a folder or removed from it (inotify), instead of polling.
/// For the administrator's side (`localauthctl touch`); a prompt in the module uses its `PromptDoorbell`.
package final class FolderWatch {
  /// The inotify descriptor to wait on, or -1 when inotify is unavailable (the waiter then polls).
  package let descriptor: Int32

  /// Watches `path` for entries renamed into it, closed after writing or removed.
  package init(_ path: String) {
    let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    if fd >= 0, inotify_add_watch(fd, path, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_DELETE_SELF)) < 0 {
      close(fd)
      descriptor = -1
    } else {
      descriptor = fd
    }
  }

  /// Reads and drops the pending notifications, so that the next wait blocks again.
  package func drain() {
    guard descriptor >= 0 else { return }
    var buffer = [UInt8](repeating: 0, count: 4096)
    while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
  }

  deinit { if descriptor >= 0 { close(descriptor) } }
}
