#if canImport(Glibc)
import Glibc
#endif

/// A folder of PAM service files that libpam reads instead of /etc/pam.d: through `pam_start_confdir` (the test
/// harness) or, for programs that call plain `pam_start` (pamtester, su, the helper), through pam_wrapper's
/// preload. The integration tests' worlds and the benchmark write their stacks here and nowhere else.
package struct PAMServiceFolder: Sendable {
  /// The folder's path.
  package let path: String

  /// The folder at `path`, which exists already.
  package init(_ path: String) { self.path = path }

  /// Makes the folder at `path` (0755, so that a process run as the test user reaches its files).
  package static func create(_ path: String) throws(TestSetupError) -> PAMServiceFolder {
    guard mkdir(path, 0o755) == 0, chmod(path, 0o755) == 0 else {
      throw TestSetupError("Cannot create the service folder \(path): \(String(cString: strerror(errno))).")
    }
    return PAMServiceFolder(path)
  }

  /// The path of service `name`'s file.
  package func file(_ name: String) -> String { path + "/" + name }

  /// Writes service `name` (0644, replacing it) with `lines`, one PAM line each.
  package func write(_ name: String, lines: [String]) throws(TestSetupError) {
    try TextFile.write(file(name), lines.map { $0 + "\n" }.joined(), mode: 0o644)
  }

  /// Writes the "other" service, which denies auth and account: libpam always parses it for default handlers, as it
  /// does /etc/pam.d/other on a real system.
  package func writeDenyingOther() throws(TestSetupError) {
    let deny = (Self.systemModuleFolder.map { $0 + "/" } ?? "") + "pam_deny.so"
    try write("other", lines: ["auth required " + deny, "account required " + deny])
  }

  /// pam_wrapper's variables that make a program read this folder instead of /etc/pam.d, with `extra` added (an
  /// extra variable of the same name wins).
  package func wrapperEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
    ["LD_PRELOAD": "libpam_wrapper.so", "PAM_WRAPPER": "1", "PAM_WRAPPER_SERVICE_DIR": path].merging(extra) { $1 }
  }

  /// pam_wrapper's variables as `NAME=value` strings, for an environment given as a list.
  package var wrapperAssignments: [String] { wrapperEnvironment().map { $0.key + "=" + $0.value }.sorted() }

  /// The system's PAM module folder (the one holding pam_permit.so), or nil when none of the usual ones has it.
  package static let systemModuleFolder: String? = {
    let folders: [String] = [
      "/lib/x86_64-linux-gnu/security", "/usr/lib/x86_64-linux-gnu/security", "/lib/aarch64-linux-gnu/security",
      "/usr/lib/aarch64-linux-gnu/security", "/lib/security", "/usr/lib/security", "/lib64/security",
    ]
    return folders.first { access($0 + "/pam_permit.so", R_OK) == 0 }
  }()

  /// True when pam_wrapper's library is installed (Debian's libpam-wrapper).
  package static let wrapperInstalled: Bool = {
    let libraries: [String] = [
      "/usr/lib/x86_64-linux-gnu/libpam_wrapper.so", "/usr/lib/aarch64-linux-gnu/libpam_wrapper.so",
      "/usr/lib/libpam_wrapper.so",
    ]
    return libraries.contains { access($0, R_OK) == 0 }
  }()
}
