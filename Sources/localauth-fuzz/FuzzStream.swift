#if canImport(Glibc)
import Glibc
#endif

/// The caller's side of the helper and app fuzz targets: the whole input written on the socket, then the socket
/// shut for writing, so that the service under test sees an end instead of waiting for more.
enum FuzzStream {
  /// Writes `bytes` to `fd` (as far as the other side reads) and shuts `fd` for writing.
  static func writeAll(_ bytes: [UInt8], to fd: Int32) {
    bytes.withUnsafeBytes { buffer in
      var sent = 0
      while sent < buffer.count {
        let n = send(fd, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
        if n <= 0 { break }
        sent += n
      }
    }
    shutdown(fd, Int32(SHUT_WR))
  }
}
