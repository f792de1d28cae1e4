import CSyscalls

// LocalAuthCore's C fence (swift-system's Internals/Syscalls.swift, NIO's System.swift). The files of this folder,
// System/, are the only core files that call the C library through CSyscalls: files, descriptors, folders, clocks,
// the terminal, the user databases, signals, locks, utmp records, libm, the helper's sockets (with the kernel's
// word on their senders, through CPeerCredentials) and its process (posix_spawn, waitpid, kill). The rest of the
// core calls them in Swift types (Int32 descriptors and pids, `Errno`, `FileSyscalls.Status`, `SocketSender`,
// seconds as Double) and imports neither module (SyscallsTests checks every core file). EINTR is retried in one
// place, `valueOrErrno(retryOnInterrupt:)` below. The other C modules are fences of their own libraries, opened
// on first use: CDBus (FprintdClient), CCrypt, CLibCrypto, CTPM.

/// An errno value a failed C call left, as the fence reports it.
struct Errno: Error, Equatable {
  /// The errno number.
  let code: Int32

  /// The calling thread's errno now.
  static var current: Errno { Errno(code: currentErrno) }

  /// EINTR: a signal arrived before the call finished.
  static let interrupted = Errno(code: EINTR)
  /// ENOENT: no such file or folder.
  static let noEntry = Errno(code: ENOENT)
  /// EACCES: permission denied (EPERM aside).
  static let accessDenied = Errno(code: EACCES)
  /// EBUSY: in use.
  static let busy = Errno(code: EBUSY)
  /// EAGAIN (EWOULDBLOCK on Linux): nothing to read yet, or a lock held elsewhere.
  static let wouldBlock = Errno(code: EAGAIN)
  /// EPIPE: the peer of a socket or pipe closed its end.
  static let brokenPipe = Errno(code: EPIPE)
  /// ECONNRESET: the peer of a socket went away with bytes unread.
  static let connectionReset = Errno(code: ECONNRESET)
  /// EIO: an input/output error.
  static let inputOutput = Errno(code: EIO)

  /// EACCES or EPERM: what the fence reports as `StateError.permissionDenied`.
  var deniesPermission: Bool { code == EACCES || code == EPERM }
}

/// ENOENT's number, for errors that report a missing file without a failed call.
let noEntryErrno: Int32 = ENOENT

/// The fence's one EINTR loop (swift-system's `valueOrErrno(retryOnInterrupt:)`): runs `call`, a C function that
/// returns -1 on failure and sets errno, again as long as it fails with EINTR (unless `retryOnInterrupt` is
/// false); its value, or the errno it failed with.
@inline(__always)
func valueOrErrno<I: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ call: () -> I) -> Result<I, Errno> {
  while true {
    let value = call()
    if value != -1 { return .success(value) }
    let error = Errno.current
    if retryOnInterrupt && error == .interrupted { continue }
    return .failure(error)
  }
}

/// The C calls the rest of the core makes, in Swift types. Each retries EINTR through `valueOrErrno` unless it
/// says otherwise.
@usableFromInline
enum Syscalls {
  /// Closes a descriptor. Never retried: on Linux the descriptor is gone even when close reports EINTR.
  static func close(_ fd: Int32) { _ = CSyscalls.close(fd) }

  /// read(2) into `buffer`; the count read (0 at the end).
  static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, retryOnInterrupt: Bool = true)
    -> Result<Int, Errno>
  {
    valueOrErrno(retryOnInterrupt: retryOnInterrupt) { CSyscalls.read(fd, buffer.baseAddress, buffer.count) }
  }

  /// write(2) from `buffer`; the count written.
  static func write(_ fd: Int32, from buffer: UnsafeRawBufferPointer, retryOnInterrupt: Bool = true)
    -> Result<Int, Errno>
  {
    valueOrErrno(retryOnInterrupt: retryOnInterrupt) { CSyscalls.write(fd, buffer.baseAddress, buffer.count) }
  }

  /// Writes all of `bytes`, write after write; the errno of the first failed write.
  static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Result<Void, Errno> {
    var written = 0
    while written < bytes.count {
      let result = bytes.withUnsafeBytes { write(fd, from: UnsafeRawBufferPointer(rebasing: $0[written...])) }
      switch result {
      case .success(let count): written += count
      case .failure(let error): return .failure(error)
      }
    }
    return .success(())
  }

  /// pread(2): reads into `buffer` at `offset` without moving the file offset; the count read.
  static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Result<Int, Errno> {
    valueOrErrno { pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
  }

  /// pwrite(2): writes `bytes` at `offset`; true when all of them were written by the one call.
  static func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int64) -> Result<Bool, Errno> {
    valueOrErrno { bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, bytes.count, off_t(offset)) } }
      .map { $0 == bytes.count }
  }

  /// ftruncate(2).
  static func truncate(_ fd: Int32, to length: Int64) -> Result<Void, Errno> {
    valueOrErrno { ftruncate(fd, off_t(length)) }.map { _ in () }
  }

  /// fsync(2).
  static func flush(_ fd: Int32) -> Result<Void, Errno> {
    valueOrErrno { fsync(fd) }.map { _ in () }
  }

  /// What fstat(2) says of an open descriptor.
  static func status(of fd: Int32) -> Result<FileSyscalls.Status, Errno> {
    var st = stat()
    return valueOrErrno { fstat(fd, &st) }.map { _ in FileSyscalls.status(st) }
  }

  /// What lstat(2) (`followingLink: false`, the default) or stat(2) says of a path.
  static func status(ofPath path: String, followingLink: Bool = false) -> Result<FileSyscalls.Status, Errno> {
    var st = stat()
    return valueOrErrno { followingLink ? stat(path, &st) : lstat(path, &st) }.map { _ in FileSyscalls.status(st) }
  }

  /// What a symbolic link holds (at most `capacity` bytes of it are read), or nil when it cannot be read or is
  /// empty.
  static func linkTarget(_ path: String, capacity: Int = Int(PATH_MAX)) -> String? {
    var buffer = [CChar](repeating: 0, count: capacity + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The physical path of the working folder (getcwd(3)).
  static func workingDirectory() -> Result<String, Errno> {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return .failure(.current) }
    return .success(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
  }

  /// At most `limit` names of a folder's entries, without "." and ".."; the errno when it cannot be opened.
  static func directoryNames(_ path: String, limit: Int = .max) -> Result<[String], Errno> {
    guard let dir = opendir(path) else { return .failure(.current) }
    defer { closedir(dir) }
    var names: [String] = []
    while names.count < limit, let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return .success(names)
  }

  /// True when `path` names something access(2) finds (F_OK, following links).
  static func isAccessible(_ path: String) -> Bool { access(path, F_OK) == 0 }

  /// This process's id (a public default argument: RequestOrigin.current).
  @usableFromInline
  static var processID: Int32 { getpid() }
  /// The numbers /proc/PID/syscall shows for a process waiting for input on this architecture (-1 for a call the
  /// architecture lacks).
  static var inputSyscallNumbers: (read: Int64, select: Int64, pselect6: Int64, poll: Int64, ppoll: Int64) {
    (
      Int64(csyscalls_read_number()), Int64(csyscalls_select_number()), Int64(csyscalls_pselect6_number()),
      Int64(csyscalls_poll_number()), Int64(csyscalls_ppoll_number())
    )
  }

  /// `count` bytes of process `pid`'s memory at `address` (/proc/PID/mem: root's, or ptrace access); nil when it
  /// cannot be read whole.
  static func processMemory(_ pid: Int32, at address: UInt64, count: Int) -> [UInt8]? {
    guard count > 0, count <= 65536, address <= UInt64(Int64.max) - UInt64(count),
      let fd = try? FileSyscalls.openNoFollow("/proc/\(pid)/mem", flags: O_RDONLY)
    else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: count)
    let got = bytes.withUnsafeMutableBytes { read(fd, into: $0, at: Int64(address)) }
    guard case .success(count) = got else { return nil }
    return bytes
  }
  /// This process's parent's id.
  static var parentProcessID: Int32 { getppid() }
  /// This process's real uid.
  static var realUserID: UInt32 { getuid() }
}
