import Glibc
import LocalAuthCore
import LocalAuthTestSupport

/// Prints a figure as one line starting with `RELIABILITY:`; `make test` collects them into build/reliability.md.
func report(_ line: String) {
  print("RELIABILITY: " + line)
}

/// Monotonic seconds, for measuring wall time.
func monotonicSeconds() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The localauth-fuzz helper built beside the test bundle (or LOCALAUTH_FUZZ_HELPER).
func helperPath() -> String {
  if let env = getenv("LOCALAUTH_FUZZ_HELPER") { return String(cString: env) }
  var buffer = [CChar](repeating: 0, count: 4096)
  let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
  let exe = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
  let folder = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
  return folder + "/localauth-fuzz"
}

/// True when `path` exists.
func exists(_ path: String) -> Bool {
  var st = stat()
  return lstat(path, &st) == 0
}

extension TemporaryFolder {
  /// The state folder inside.
  var state: String { path + "/state" }
}

/// A snapshot of a tree (paths, types, owners, modes, contents), to prove that nothing changed.
func snapshot(_ path: String) -> [String: String] {
  var result: [String: String] = [:]
  func walk(_ p: String) {
    var st = stat()
    guard lstat(p, &st) == 0 else { return }
    let kind = st.st_mode & S_IFMT
    var entry = "mode=\(String(st.st_mode, radix: 8)) uid=\(st.st_uid) size=\(st.st_size)"
    if kind == S_IFREG, let bytes = try? readWhole(p) { entry += " sum=\(bytes.reduce(UInt64(5381)) { ($0 &* 33) &+ UInt64($1) })" }
    if kind == S_IFLNK {
      var buffer = [CChar](repeating: 0, count: 4096)
      let n = readlink(p, &buffer, buffer.count - 1)
      entry += " link=" + String(decoding: buffer[0..<max(n, 0)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    result[p] = entry
    if kind == S_IFDIR, let dir = opendir(p) {
      var names: [String] = []
      while let e = readdir(dir) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
      }
      closedir(dir)
      for name in names { walk(p + "/" + name) }
    }
  }
  walk(path)
  return result
}

/// Reads a whole file.
func readWhole(_ path: String) throws -> [UInt8] {
  guard let file = fopen(path, "rb") else { throw StateError.io(path: path, operation: "open", errno: errno) }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65536)
  while true {
    let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
    if n == 0 { return bytes }
    bytes += chunk[0..<n]
  }
}

/// Writes a whole file with `mode`, replacing it.
func writeWhole(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) {
  unlink(path)
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
  precondition(fd >= 0, "cannot create \(path)")
  _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  fchmod(fd, mode)
  close(fd)
}

/// The uid of nobody, to simulate files owned by someone other than root.
let nobodyUID: uid_t = getpwnam("nobody")?.pointee.pw_uid ?? 65534
