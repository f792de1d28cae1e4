#if canImport(Glibc)
import Glibc
#endif

/// A temporary folder for test worlds and benchmarks, removed with all it holds when the value is released: made with
/// mkdtemp (so only its maker can guess the name) and removed without following links, without Foundation (the
/// benchmark does not link it). The static functions serve worlds that keep the path themselves.
package final class TemporaryFolder {
  /// The folder's path (root-owned when root runs the tests, 0700).
  package let path: String

  /// Makes `/tmp/localauth-<label>-XXXXXX`; stops the test run when the C library cannot (no folder, no test).
  package init(_ label: String = "test") {
    do { path = try Self.make("/tmp/localauth-\(label)-XXXXXX") } catch { preconditionFailure(error.description) }
  }

  deinit { Self.remove(path) }

  /// Makes a fresh folder from `template` (its last six characters `XXXXXX`), with `mode` (mkdtemp's is 0700);
  /// returns its path.
  package static func make(_ template: String, mode: mode_t = 0o700) throws(TestSetupError) -> String {
    var name = Array(template.utf8CString)
    guard let made = mkdtemp(&name) else {
      throw TestSetupError("Cannot create a temporary folder from \(template): \(reason(errno)).")
    }
    let path = String(cString: made)
    if mode != 0o700, chmod(path, mode) != 0 {
      let error = errno
      remove(path)
      throw TestSetupError("Cannot set the mode of \(path): \(reason(error)).")
    }
    return path
  }

  /// Removes `path` and, for a folder, everything below it (links are removed, never followed); a missing path is
  /// no error. Best effort, as `rm -rf` is: what cannot be removed stays.
  package static func remove(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      unlink(path)
      return
    }
    for name in entries(path) { remove(path + "/" + name) }
    rmdir(path)
  }

  /// The names in folder `path`, without `.` and `..`.
  private static func entries(_ path: String) -> [String] {
    guard let folder = opendir(path) else { return [] }
    defer { closedir(folder) }
    var names: [String] = []
    while let entry = readdir(folder) {
      let name = withUnsafePointer(to: &entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
