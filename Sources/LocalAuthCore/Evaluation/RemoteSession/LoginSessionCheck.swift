/// The login-session part of the remote detection (docs/RULES.md, rule 2, "The login session"): what the kernel
/// and root recorded about the session of the asking process, which nothing the user runs can change.
///
/// - A process in no login session (audit session unset) is local only when it and every ancestor up to init
///   run as root: login(1) under getty and a display manager ask before their session exists. Anything a user
///   starts outside a login session (`systemd-run --user`, a service of their own) is not local.
/// - A session recorded remote in the ledger (SessionLedger) is remote, for ever; one recorded local is local as
///   far as the session goes (the other checks still apply).
/// - With a ledger for this boot, a session it does not hold was opened without pam_localauth's session line
///   (before it was installed, or by a stack without it, such as cron's): not local.
/// - Without a ledger (the session line runs nowhere), a utmp login record with a remote host whose process is
///   in the session (sshd's, while the connection lasts) makes it remote. Once the connection has ended, a
///   process it left behind can no longer be told apart, so a user's login session (a login uid other than
///   root's) is not local at all without a ledger: no ledger, no finger (docs/INSTALL.md asks for the session
///   line). Root's sessions, and processes in no session (login under getty, display managers), keep the rules
///   above.
extension RemoteSession {
  /// The audit session id the kernel gave `pid` (/proc/PID/sessionid); nil when unset or unreadable.
  static func auditSession(_ pid: Int32, _ system: System) -> UInt32? {
    guard let bytes = system.read("/proc/\(pid)/sessionid", 32),
      let value = UInt32(String(decoding: bytes, as: UTF8.self).trimmingWhitespace()), value != UInt32.max
    else { return nil }
    return value
  }

  /// Why the login session of `pid` (whose audit session is `session`) is remote or not known to be local; nil
  /// when the session part allows a local verdict. For a process of the user manager while logind runs
  /// (`userManager`), only a session recorded remote counts here: the user's display session stands in for the
  /// rest (LogindSession.swift).
  static func loginSessionReason(
    _ pid: Int32, session: UInt32?, _ system: System, userManager: Bool = false, ancestry: () -> Ancestry
  ) -> String? {
    if userManager {
      guard let session, system.sessionLedger(session) == .recorded(.remote) else { return nil }
      return "login session \(session) was opened remotely (recorded when it was opened)"
    }
    guard let session else {
      guard let stranger = ancestry().stranger else { return nil }
      return "process \(pid) is in no login session (its audit session is unset) and \(stranger)"
    }
    return ledgerReason(session, owner: { loginUID(pid, system) }, system)
  }

  /// What the ledger says against login session `session`, whose login uid `owner` gives (nil: unreadable); nil
  /// when the session part allows a local verdict.
  static func ledgerReason(_ session: UInt32, owner: () -> UInt32?, _ system: System) -> String? {
    switch system.sessionLedger(session) {
    case .recorded(.remote): return "login session \(session) was opened remotely (recorded when it was opened)"
    case .recorded(.local): return nil
    case .unrecorded:
      return "login session \(session) was not recorded when it was opened (before pam_localauth's session line "
        + "was installed, or by a stack without it)"
    case .noLedger:
      if let network = networkLogin(in: session, system) { return network }
      if system.judgesOpening { return nil }
      let uid = owner()
      guard let uid, uid == 0 else {
        let whose = uid.map { "of uid \($0)" } ?? "of an unreadable login uid"
        return missingLedger + " cannot tell whether login session \(session) \(whose) was opened at the machine"
      }
      return nil
    }
  }

  /// How a reason for a user's session without a ledger starts (Verdict.missingLedger).
  static let missingLedger =
    "no ledger: pam_localauth's session line (`session optional pam_localauth.so` in the login stacks) has not "
    + "run since boot, so the module"

  /// The login uid pam_loginuid gave `pid` (/proc/PID/loginuid); nil when unset or unreadable.
  static func loginUID(_ pid: Int32, _ system: System) -> UInt32? {
    guard let bytes = system.read("/proc/\(pid)/loginuid", 32),
      let value = UInt32(String(decoding: bytes, as: UTF8.self).trimmingWhitespace()), value != UInt32.max
    else { return nil }
    return value
  }

  /// "utmp records a login from HOST in login session S (pid N)" when a utmp login record with a remote host
  /// belongs to a process of the session: sshd records each login with a terminal under the pid of its session
  /// process, which carries the session id pam_loginuid gave it for as long as the connection lasts.
  static func networkLogin(in session: UInt32, _ system: System) -> String? {
    guard let bytes = system.read(utmpPath, 1 << 20) else { return nil }
    for record in UtmpRecord.records(in: bytes) where record.type == UtmpRecord.userProcess && record.pid > 0 {
      guard !record.host.isEmpty, !isLocalDisplay(record.host), auditSession(record.pid, system) == session else {
        continue
      }
      return "utmp records a login from \(LogText.token(record.host)) in login session \(session) (pid \(record.pid))"
    }
    return nil
  }
}
