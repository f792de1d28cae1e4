import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for /dev/log: a datagram socket that keeps what syslog(3) sends to it, so a test can read the lines
/// a program logs (localauth-helper logs through syslog only). `HelperWorld.asUser(devLog:)` binds a folder holding
/// it over /dev in the run's private mount namespace; the system's /dev never changes.
final class SyslogSocket {
  /// The folder bound over /dev: /dev/null and the other character devices a program needs, and `log`.
  let devFolder: String
  private let fd: Int32

  /// The device nodes bound from the real /dev into `devFolder`.
  static let nodes = ["null", "zero", "full", "random", "urandom", "tty"]

  /// Makes `folder` (0755) with empty files for `nodes` and the socket `log` (0666).
  init(folder: String) throws {
    devFolder = folder
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    chmod(folder, 0o755)
    for node in Self.nodes { FileManager.default.createFile(atPath: folder + "/" + node, contents: nil) }
    fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    guard fd >= 0 else { throw SandboxError.setup("socket failed") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let path = Array((folder + "/log").utf8CString)
    guard path.count <= MemoryLayout.size(ofValue: address.sun_path) else { throw SandboxError.setup("log path too long") }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: path.map { UInt8(bitPattern: $0) }) }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0 else { throw SandboxError.setup("bind \(folder)/log failed") }
    chmod(folder + "/log", 0o666)
  }

  deinit { close(fd) }

  /// The shell commands, run as root in the private namespace, that put `devFolder` over /dev.
  var mountCommands: String {
    Self.nodes.map { "mount --bind /dev/\($0) \"\(devFolder)/\($0)\"" }.joined(separator: " && ")
      + " && mount --rbind \"\(devFolder)\" /dev"
  }

  /// Every message received so far (syslog's header included), oldest first.
  func messages() -> [String] {
    var lines: [String] = []
    var buffer = [UInt8](repeating: 0, count: 8192)
    while true {
      let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
      guard count > 0 else { break }
      lines.append(String(decoding: buffer[0..<count], as: UTF8.self))
    }
    return lines
  }
}
