import LocalAuthCore

/// Whether the kernel lets a user's programs trace the user's other processes (Yama's `ptrace_scope`): where it
/// does, any program of the user can inject code into a system program of the same user after it started (a
/// terminal emulator, tmux, a screen locker), which the intent rules cannot see (docs/THREATS.md, "Residual
/// limits"; docs/INSTALL.md, "Hardening").
enum PtraceReach: Equatable {
  /// Yama restricts tracing: `ptrace_scope` is 1 (descendants only), 2 (root only) or 3 (no one).
  case restricted(scope: Int)
  /// Yama is absent: /proc/sys/kernel/yama/ptrace_scope does not exist, and a process may trace any process of
  /// its user.
  case noYama
  /// `ptrace_scope` is 0: a process may trace any process of its user.
  case unrestricted
  /// The file could not be read or holds no number: the reach is unknown.
  case unknown(String)

  /// Where Yama shows its setting.
  static let scopeFile = "/proc/sys/kernel/yama/ptrace_scope"

  /// Reads `path` (root's file, read the module's safe way): missing means no Yama.
  static func read(_ path: String) -> PtraceReach {
    let bytes: [UInt8]?
    do throws(StateError) {
      bytes = try FileSyscalls.readTrustedFile(path, limit: 64)
    } catch {
      return .unknown("\(error)")
    }
    guard let bytes else { return .noYama }
    let text = String(decoding: bytes.filter { $0 != 0x0A && $0 != 0x20 }, as: UTF8.self)
    guard let scope = Int(text), scope >= 0 else { return .unknown("\(path) holds \"\(text.prefix(16))\", not a number") }
    return scope == 0 ? .unrestricted : .restricted(scope: scope)
  }

  /// The warning `check-config` prints, with what it costs and the fix; nil when tracing is restricted.
  func warning(path: String) -> String? {
    let why: String
    switch self {
    case .restricted: return nil
    case .noYama: why = "The kernel lets a user's programs trace each other: Yama is absent (\(path) does not exist)"
    case .unrestricted: why = "The kernel lets a user's programs trace each other: kernel.yama.ptrace_scope is 0"
    case .unknown(let reason): why = "Whether the kernel lets a user's programs trace each other is unknown (\(reason))"
    }
    return "Warning: " + why + ". Any program a user runs can then inject code into a system program of that user "
      + "after it started (a terminal emulator, tmux, a screen locker) and ask for the finger in its name; the intent "
      + "rules cannot see it, so a touch may approve what the injected code asks (docs/THREATS.md). Fix: set "
      + "kernel.yama.ptrace_scope = 1 or higher in a file of /etc/sysctl.d and run sysctl --system (a kernel without "
      + "Yama needs one built with CONFIG_SECURITY_YAMA); then debuggers attach only to their own children "
      + "(gdb -p and strace -p of another process need root), as Ubuntu ships (docs/INSTALL.md, \"Hardening\")."
  }
}
