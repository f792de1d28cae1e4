import LocalAuthCore
import LocalAuthTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Why the benchmark could not set up; setup problems are reported, never turned into a failed build.
typealias SetupError = TestSetupError

/// The benchmark's files: the built artefacts it measures and a scratch folder it owns.
struct BenchPaths {
  /// The build folder (build/), absolute.
  let build: String
  /// build/pam_localauth.so.
  var module: String { build + "/pam_localauth.so" }
  /// build/pam_localauth/extra.so, the module's rarely used parts, which it opens from beside itself.
  var extraLibrary: String { build + "/pam_localauth/extra.so" }
  /// build/bench_floor.so: a minimal Swift PAM module linked like pam_localauth (Sources/BenchFloorModule); nil when absent.
  var floorModule: String? { access(build + "/bench_floor.so", R_OK) == 0 ? build + "/bench_floor.so" : nil }
  /// build/one-module/pam_localauth.so: every part in one library, no extra.so (make bench; issue 40, item 4); nil when absent.
  var oneModule: String? {
    access(build + "/one-module/pam_localauth.so", R_OK) == 0 ? build + "/one-module/pam_localauth.so" : nil
  }
  /// build/localauthctl.
  var ctl: String { build + "/localauthctl" }
  /// The scratch folder, removed and recreated on every run.
  var work: String { build + "/bench-work" }
  /// The service files, for both pam_wrapper and pam_start_confdir.
  var services: PAMServiceFolder { PAMServiceFolder(work + "/pam.d") }
  /// An empty configuration file, so that /etc/security/localauth.conf does not sway the figures.
  var conf: String { work + "/localauth.conf" }
  /// The log of setup commands and failed runs.
  var log: String { work + "/bench.log" }
  /// A scratch folder on tmpfs (/dev/shm), for state folders whose writes cost no disk flush; nil without tmpfs.
  let memoryWork: String?
  /// The folder holding pam_permit.so and pam_unix.so.
  let securityDir: String

  /// Finds the build folder (absolute) and the system's PAM module folder.
  init(build: String) throws {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
    guard realpath(build, &buffer) != nil else { throw SetupError("The build folder \(build) does not exist; run make module tools.") }
    self.build = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let dir = PAMServiceFolder.systemModuleFolder else {
      throw SetupError("pam_permit.so was not found in the usual PAM module folders.")
    }
    securityDir = dir
    let mounts = readText("/proc/mounts") ?? ""
    let shm = mounts.split(separator: "\n").contains { line in
      let fields = line.split(separator: " ")
      return fields.count > 2 && fields[1] == "/dev/shm" && fields[2] == "tmpfs"
    }
    memoryWork = shm ? "/dev/shm/localauth-bench" : nil
  }

  /// A runtime folder for prompts on tmpfs, as /run/localauth is on an installed system (the state stays on
  /// disk); nil without tmpfs, where the prompts stay in the state folder.
  func runtimeFolder(_ name: String) -> String? { memoryWork.map { $0 + "/run-" + name } }

  /// Recreates the scratch folder with its service folder and empty configuration file.
  func resetWork() throws {
    removeWork()
    guard mkdir(work, 0o700) == 0 else { throw SetupError("Cannot create \(work).") }
    try PAMServiceFolder.create(services.path).writeDenyingOther()
    if let memoryWork, mkdir(memoryWork, 0o700) != 0 { throw SetupError("Cannot create \(memoryWork).") }
    try writeFile(conf, "# Empty: the benchmark passes every option as a module argument.\n", mode: 0o644)
  }

  /// Removes the scratch folders.
  func removeWork() {
    Spawn.setup(["/bin/rm", "-rf", work])
    if let memoryWork { Spawn.setup(["/bin/rm", "-rf", memoryWork]) }
  }

  /// Writes one service file with a single `auth required` line.
  func writeService(_ name: String, _ line: String) throws { try writeStack(name, ["required " + line]) }

  /// Writes one service file whose auth stack is `lines` ("control module args"), plus pam_permit for account.
  /// pamtester answers through pipes, with no terminal: each pam_localauth line names its own service in
  /// `gui_services=` (docs/RULES.md, "Intent"), so the finger is asked (pamtester runs as root, whose services in
  /// gui_services need no /proc read; figure 9 times the check for a request from a terminal).
  func writeStack(_ name: String, _ lines: [String]) throws {
    let modules = [module] + (oneModule.map { [$0] } ?? [])
    let marked = lines.map { line in "auth " + line + (modules.contains { line.contains($0) } ? " gui_services=" + name : "") }
    try services.write(name, lines: marked + ["account required " + securityDir + "/pam_permit.so"])
  }

  /// The environment that makes pamtester read our service files through pam_wrapper.
  var wrapperEnvironment: [String] {
    Spawn.baseEnvironment + services.wrapperAssignments
  }
}

/// Writes a file (replacing it) with `mode`.
func writeFile(_ path: String, _ text: String, mode: mode_t = 0o600) throws { try TextFile.write(path, text, mode: mode) }

/// Drops a file's pages from the page cache (after `sync`), so that the next mapping reads it in afresh.
func dropFromPageCache(_ path: String) {
  let fd = open(path, O_RDONLY | O_CLOEXEC)
  guard fd >= 0 else { return }
  _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
  close(fd)
}

/// Reads a small text file; nil when it cannot be read.
func readText(_ path: String) -> String? { TextFile.read(path) }

/// The benchmark's system user: created with useradd, given a yescrypt password with chpasswd, removed at the end.
struct BenchUser {
  /// The login name.
  let name: String

  /// Creates the user (reusing one a crashed run left behind).
  static func create(_ name: String, log: String) throws -> BenchUser {
    if getpwnam(name) == nil {
      guard let useradd = Spawn.which("useradd"),
        Spawn.setup([useradd, "-M", "-s", "/usr/sbin/nologin", "-c", "pam_localauth benchmark", name], logPath: log)
      else { throw SetupError("useradd \(name) failed (see \(log)).") }
    }
    return BenchUser(name: name)
  }

  /// Sets the /etc/shadow password with yescrypt at `cost`, as Debian's default (login.defs YESCRYPT_COST_FACTOR).
  func setPassword(_ secret: String, cost: UInt, scratch: String, log: String) throws {
    let input = scratch + "/chpasswd.in"
    try writeFile(input, name + ":" + secret + "\n")
    defer { unlink(input) }
    guard let chpasswd = Spawn.which("chpasswd"),
      Spawn.setup([chpasswd, "-c", "YESCRYPT", "-s", String(cost)], stdinPath: input, logPath: log)
    else { throw SetupError("chpasswd for \(name) failed (see \(log)).") }
  }

  /// The user's /etc/shadow hash, or nil.
  func shadowHash() -> String? {
    guard let text = readText("/etc/shadow") else { return nil }
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: ":", omittingEmptySubsequences: false)
      if fields.count > 1, fields[0] == name { return String(fields[1]) }
    }
    return nil
  }

  /// The user's uid and primary gid.
  var uid: UInt32 { getpwnam(name).map { $0.pointee.pw_uid } ?? 65534 }
  var gid: UInt32 { getpwnam(name).map { $0.pointee.pw_gid } ?? 65534 }

  /// Removes the user.
  func remove(log: String) {
    guard getpwnam(name) != nil, let userdel = Spawn.which("userdel") else { return }
    Spawn.setup([userdel, name], logPath: log)
  }
}

/// The part of a crypt hash that names the method and its cost ("$y$j9T$" for yescrypt cost 5).
func hashSetting(_ hash: String) -> String {
  let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
  guard parts.count >= 4 else { return hash.isEmpty ? "(none)" : "(not a crypt hash)" }
  return "$" + parts[1] + "$" + parts[2] + "$"
}

/// The cost Debian's login.defs sets for yescrypt (YESCRYPT_COST_FACTOR, default 5).
func loginDefsYescryptCost() -> UInt {
  guard let text = readText("/etc/login.defs") else { return 5 }
  for line in text.split(separator: "\n") {
    let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
    if words.count >= 2, words[0] == "YESCRYPT_COST_FACTOR", let n = UInt(words[1]) { return n }
  }
  return 5
}
