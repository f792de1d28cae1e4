import Glibc

/// A helper process started with posix_spawn: stdout and stderr go to one pipe, stdin to an optional gate.
struct ChildProcess {
  /// The process id.
  let pid: pid_t
  /// The read end of the child's output.
  let output: Int32

  /// How a child ended.
  enum Ending: Equatable {
    case exited(Int32)
    case signalled(Int32)
  }

  /// Starts `path` with `arguments`; `stdin` is dup'ed to the child's 0 (nil: /dev/null).
  static func start(_ path: String, _ arguments: [String], stdin: Int32? = nil) -> ChildProcess {
    var fds: [Int32] = [0, 0]
    makePipe(&fds)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let stdin {
      posix_spawn_file_actions_adddup2(&actions, stdin, 0)
    } else {
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let status = argv.withUnsafeBufferPointer { buffer in
      posix_spawn(&pid, path, &actions, nil, UnsafeMutablePointer(mutating: buffer.baseAddress!), environ)
    }
    precondition(status == 0, "posix_spawn \(path) failed: \(status)")
    close(fds[1])
    return ChildProcess(pid: pid, output: fds[0])
  }

  /// Reads one line of output (blocking); nil at end of output.
  func readLine() -> String? {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let n = read(output, &byte, 1)
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
      if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
  }

  /// Reads the rest of the output and closes the pipe.
  func readRest() -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      bytes += chunk[0..<n]
    }
    close(output)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Sends SIGKILL.
  func kill() { _ = Glibc.kill(pid, SIGKILL) }

  /// Waits for the child to end.
  func wait() -> Ending {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    if status & 0x7f == 0 { return .exited((status >> 8) & 0xff) }
    return .signalled(status & 0x7f)
  }
}

/// A pipe whose write end the test closes to let many children start at the same instant.
struct StartGate {
  let readEnd: Int32
  let writeEnd: Int32

  init() {
    var fds: [Int32] = [0, 0]
    makePipe(&fds)
    readEnd = fds[0]
    writeEnd = fds[1]
  }

  /// Lets every waiting child go.
  func open() {
    close(writeEnd)
    close(readEnd)
  }
}

/// pipe(2) with close-on-exec on both ends, so that no other child inherits them (pipe2 needs _GNU_SOURCE).
func makePipe(_ fds: inout [Int32]) {
  precondition(pipe(&fds) == 0, "pipe failed")
  for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
}
