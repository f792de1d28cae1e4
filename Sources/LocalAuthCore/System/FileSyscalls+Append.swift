import CSyscalls

/// A file's device, inode, size and modification time: what tells, without reading it, that a file another
/// process appends to or replaces has changed (the keychain's cached index, `KeychainCache`).
struct FileStamp: Equatable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var seconds: Int64
  var nanoseconds: Int64
}

extension FileSyscalls {
  /// Appends `bytes` to a trusted regular file (created when missing) and flushes it.
  static func appendTrusted(_ bytes: [UInt8], path: String) throws(StateError) {
    guard let fd = try openNoFollow(path, flags: O_WRONLY | O_APPEND | O_CREAT, mode: 0o600) else {
      throw .io(path: path, operation: "open", errno: ENOENT)
    }
    defer { close(fd) }
    let status = try status(of: fd, path: path)
    guard status.isRegular else { throw .insecure(path: path, reason: "it is not a regular file") }
    try checkTrusted(status, path: path)
    guard status.linkCount == 1 else { throw .insecure(path: path, reason: "it has \(status.linkCount) hard links") }
    if case .failure(let error) = Syscalls.writeAll(fd, bytes) {
      throw .io(path: path, operation: "write", errno: error.code)
    }
    try retryingSyscall("fsync", path) { fsync(fd) }
  }

  /// The stamp of a regular file (not following a link); nil when there is none.
  static func stamp(_ path: String) -> FileStamp? {
    guard case .success(let status) = Syscalls.status(ofPath: path), status.kind == .regular else { return nil }
    return FileStamp(
      device: status.device, inode: status.inode, size: Int64(status.size), seconds: status.modified.seconds,
      nanoseconds: status.modified.nanoseconds)
  }
}
