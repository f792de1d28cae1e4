/// The one seam between the caller's-process rules (RemoteSession, RequestVisibility, TerminalWatch, SystemProgram)
/// and the kernel: every /proc file, link, folder and file status they read, and the peer of a Unix socket, comes
/// through here. Tests give fakes (recorded /proc snapshots); nothing falls back to the live system.
package struct ProcessFacts: Sendable {
  /// What stat(2) says of a file, as far as the rules need.
  package struct FileStatus: Equatable, Sendable {
    /// The owner's uid.
    package var owner: UInt32
    /// The mode: type and permission bits.
    package var mode: UInt32
    /// The device the file is on.
    package var device: UInt64
    /// The file's inode.
    package var inode: UInt64

    /// Describes a file.
    package init(owner: UInt32, mode: UInt32, device: UInt64, inode: UInt64) {
      self.owner = owner
      self.mode = mode
      self.device = device
      self.inode = inode
    }

    var isRegular: Bool { mode & 0o170000 == 0o100000 }
    var isDirectory: Bool { mode & 0o170000 == 0o040000 }
    /// Root-owned and not writable by group or others.
    var isRootsAlone: Bool { owner == 0 && mode & 0o022 == 0 }
  }

  /// The contents of a file of at most `limit` bytes; nil when it is missing, unreadable or larger.
  package var read: @Sendable (_ path: String, _ limit: Int) -> [UInt8]?
  /// What a symbolic link holds (/proc/PID/exe, /proc/PID/fd/N); nil when it cannot be read.
  package var readLink: @Sendable (_ path: String) -> String?
  /// The names in a folder, without "." and "..", at most `limit` of them; nil when it cannot be listed.
  package var list: @Sendable (_ path: String, _ limit: Int) -> [String]?
  /// What stat(2) (`follow`) or lstat(2) says of a file; nil when it fails.
  package var status: @Sendable (_ path: String, _ follow: Bool) -> FileStatus?
  /// The process at the other end of a connected Unix socket that process `pid` holds as descriptor `fd` (the
  /// kernel's SO_PEERCRED: who connected, or accepted); nil when it is not such a socket or cannot be asked.
  package var socketPeer: @Sendable (_ pid: Int32, _ fd: Int32) -> Int32?
  /// `count` bytes of process `pid`'s memory at `address` (/proc/PID/mem, root's to read): the descriptor sets a
  /// blocked select(2) or poll(2) waits on; nil when they cannot be read whole.
  package var memory: @Sendable (_ pid: Int32, _ address: UInt64, _ count: Int) -> [UInt8]?

  /// Describes a system. What is not given reads nothing: a fake names every fact its test relies on.
  package init(
    read: @escaping @Sendable (String, Int) -> [UInt8]?,
    readLink: @escaping @Sendable (String) -> String? = { _ in nil },
    list: @escaping @Sendable (String, Int) -> [String]? = { _, _ in nil },
    status: @escaping @Sendable (String, Bool) -> FileStatus? = { _, _ in nil },
    socketPeer: @escaping @Sendable (Int32, Int32) -> Int32? = { _, _ in nil },
    memory: @escaping @Sendable (Int32, UInt64, Int) -> [UInt8]? = { _, _, _ in nil }
  ) {
    self.read = read
    self.readLink = readLink
    self.list = list
    self.status = status
    self.socketPeer = socketPeer
    self.memory = memory
  }

  /// The running system (files opened without following a final symbolic link).
  package static var live: ProcessFacts {
    ProcessFacts(
      read: { path, limit in try? readSmallFile(path, limit: limit) },
      readLink: { path in Syscalls.linkTarget(path, capacity: 4095) },
      list: { path, limit in try? Syscalls.directoryNames(path, limit: limit).get() },
      status: { path, follow in
        guard case .success(let info) = Syscalls.status(ofPath: path, followingLink: follow) else { return nil }
        return FileStatus(owner: info.owner, mode: info.typeAndMode, device: info.device, inode: info.inode)
      },
      socketPeer: { pid, fd in Syscalls.socketPeer(of: pid, descriptor: fd) },
      memory: { pid, address, count in Syscalls.processMemory(pid, at: address, count: count) })
  }
}
