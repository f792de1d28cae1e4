import CSyscalls

/// The resource limits the helper sets for itself, and checks it got: a caller's limit must never cut a state
/// write short (RLIMIT_FSIZE kills with SIGXFSZ mid-write), starve it of descriptors, or leave a core file with a
/// secret in it. A setuid-root program can usually raise its limits (CAP_SYS_RESOURCE); where it cannot (that
/// capability is outside its bounding set), a hard limit the caller lowered stays, and the helper refuses to run.
enum ResourceLimits {
  /// The least RLIMIT_FSIZE the helper accepts when it cannot make it unlimited: above every file it writes (a
  /// record is at most `StateCodec.maximumSize`, 256 KiB; a keychain item 64 KiB).
  static let minimumFileSize: rlim_t = 1 << 20
  /// The descriptors the helper asks for (RLIMIT_NOFILE), and the fewest it accepts: its socket, the state
  /// files, their locks and folders, syslog's socket and a few /proc reads.
  static let openFiles: rlim_t = 1024
  static let minimumOpenFiles: rlim_t = 64

  /// A limit the helper needs and could not get; it then refuses to run.
  enum Refusal: Equatable {
    /// RLIMIT_FSIZE stays at `limit` bytes, below `minimumFileSize`.
    case fileSize(limit: rlim_t)
    /// RLIMIT_NOFILE stays at `limit` descriptors, below `minimumOpenFiles`.
    case openFiles(limit: rlim_t)
    /// RLIMIT_CORE stays at `limit` bytes instead of 0.
    case coreFile(limit: rlim_t)

    /// The log line: one plain sentence naming the limit, the caller's uid and what the helper needs.
    func sentence(uid: uid_t) -> String {
      let what: String
      switch self {
      case .fileSize(let limit):
        what = "a file size limit (RLIMIT_FSIZE) of \(limit) bytes that it cannot raise to at least \(minimumFileSize)"
      case .openFiles(let limit):
        what = "an open files limit (RLIMIT_NOFILE) of \(limit) that it cannot raise to at least \(minimumOpenFiles)"
      case .coreFile(let limit):
        what = "a core file limit (RLIMIT_CORE) of \(limit) bytes that it cannot set to 0"
      }
      return "localauth-helper was run by uid \(uid) with \(what), so a state write could fail; refused."
    }
  }

  /// Sets the limits, then reads them back; the first one the helper did not get, or nil when it has them all.
  static func apply() -> Refusal? {
    let fileSize = Int32(RLIMIT_FSIZE.rawValue)
    if !set(fileSize, cur: unlimited, max: unlimited) { raiseSoftToHard(fileSize) }
    let files = Int32(RLIMIT_NOFILE.rawValue)
    if !set(files, cur: openFiles, max: openFiles) { raiseSoftToHard(files) }
    let core = Int32(RLIMIT_CORE.rawValue)
    _ = set(core, cur: 0, max: 0)

    let gotFileSize = current(fileSize)
    if gotFileSize != unlimited && gotFileSize < minimumFileSize { return .fileSize(limit: gotFileSize) }
    let gotFiles = current(files)
    if gotFiles != unlimited && gotFiles < minimumOpenFiles { return .openFiles(limit: gotFiles) }
    let gotCore = current(core)
    if gotCore != 0 { return .coreFile(limit: gotCore) }
    return nil
  }

  /// RLIM_INFINITY (all ones in rlim_t), which does not import as a constant.
  static let unlimited: rlim_t = rlim_t.max

  private static func set(_ resource: Int32, cur: rlim_t, max: rlim_t) -> Bool {
    var limit = rlimit(rlim_cur: cur, rlim_max: max)
    return setrlimit(resource, &limit) == 0
  }

  /// Without the right to raise the hard limit, the soft one can still go up to it.
  private static func raiseSoftToHard(_ resource: Int32) {
    var limit = rlimit(rlim_cur: 0, rlim_max: 0)
    guard getrlimit(resource, &limit) == 0 else { return }
    _ = set(resource, cur: limit.rlim_max, max: limit.rlim_max)
  }

  /// The soft limit now; 0 when it cannot be read (which the checks treat as too low).
  private static func current(_ resource: Int32) -> rlim_t {
    var limit = rlimit(rlim_cur: 0, rlim_max: 0)
    return getrlimit(resource, &limit) == 0 ? limit.rlim_cur : 0
  }
}
