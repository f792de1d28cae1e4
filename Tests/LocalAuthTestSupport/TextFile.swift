#if canImport(Glibc)
import Glibc
#endif

/// Small text files for test worlds and the benchmark (service files, configuration files, scripts), written and
/// read without Foundation, which the benchmark does not link.
package enum TextFile {
  /// Writes `text` to `path` (replacing what is there) and gives it `mode` (umask does not narrow it).
  package static func write(_ path: String, _ text: String, mode: mode_t = 0o600) throws(TestSetupError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard fd >= 0 else { throw failure(path, errno) }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw failure(path, errno) }
      done += n
    }
    guard fchmod(fd, mode) == 0 else { throw failure(path, errno) }
  }

  /// The text of the file at `path`, or nil when it cannot be read.
  package static func read(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = fread(&chunk, 1, chunk.count, file)
      if n <= 0 { break }
      bytes += chunk[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func failure(_ path: String, _ code: Int32) -> TestSetupError {
    TestSetupError("Cannot write \(path): \(String(cString: strerror(code))).")
  }
}
