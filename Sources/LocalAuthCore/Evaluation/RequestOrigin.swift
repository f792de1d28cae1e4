/// Who asks for an evaluation and from where: named on the prompt, stamped on failures, and the scope of the
/// reuse window (docs/RULES.md, rule 7).
///
/// For `su alice` typed by bob, the requester is bob (su's real uid), the target user alice.
public struct RequestOrigin: Equatable, Sendable {
  /// The PAM service, or the program's name.
  package var service: String
  /// The terminal (PAM_TTY); empty when there is none.
  package var tty: String
  /// The asking process's real uid.
  package var requesterUID: UInt32
  /// The asking user's name ("uid-N" when it has no passwd entry).
  package var requesterName: String
  /// The remote host (PAM_RHOST); empty when none was given.
  package var remoteHost: String
  /// The asking process.
  package var processID: Int32
  /// The kernel's audit session of the asking process (/proc/self/sessionid); empty when not set.
  package var loginSession: String
  /// The asking process's terminal session (getsid) as "PID@START": the leader's pid and its start time, so
  /// that a terminal whose number was recycled, or another shell of the same login, is another scope.
  package var sessionLeader: String
  /// False when the session leader could not be read: the request then neither opens nor uses a reuse window.
  package var reuseAllowed: Bool
  /// What a finger approves ("run `apt upgrade` as root (sudo)", ApprovedCommand); empty when only the service
  /// is known. Printable ASCII, at most 200 bytes.
  package var approval: String = "" {
    didSet { approval = Self.line(approval) }
  }

  /// Describes an origin; every text is reduced to a short printable token (`RequestOrigin.token`).
  public init(
    service: String = "unknown", tty: String = "", requesterUID: UInt32 = 0, requesterName: String = "root",
    remoteHost: String = "", processID: Int32 = 0, loginSession: String = "", sessionLeader: String = "",
    reuseAllowed: Bool = true
  ) {
    self.service = Self.token(service)
    self.tty = Self.token(tty)
    self.requesterUID = requesterUID
    self.requesterName = Self.token(requesterName)
    self.remoteHost = Self.token(remoteHost)
    self.processID = processID
    self.loginSession = Self.token(loginSession)
    self.sessionLeader = Self.token(sessionLeader)
    self.reuseAllowed = reuseAllowed
  }

  /// The calling process as the requester: its real uid and that user's name, its pid (or `processID`: the
  /// helper names its caller), its audit session and its terminal session's leader. The helper is the caller's
  /// child, so it reads both from itself: the kernel gave it its caller's.
  package static func current(
    service: String, tty: String = "", remoteHost: String = "", processID: Int32 = Syscalls.processID
  ) -> RequestOrigin {
    let uid = Syscalls.realUserID
    let leader = Syscalls.sessionID
    let start = leaderStart(leader)
    return RequestOrigin(
      service: service, tty: tty, requesterUID: uid, requesterName: userName(of: uid), remoteHost: remoteHost,
      processID: processID, loginSession: auditSession(), sessionLeader: start.map { "\(leader)@\($0)" } ?? "",
      reuseAllowed: start != nil)
  }

  /// The terminal session leader this process had when last asked and its start time. A process's session
  /// changes only when it calls setsid, so the leader read first stays its leader (were that pid reused, the
  /// first start time is the right one).
  private static let leaderLock = Mutex()
  nonisolated(unsafe) private static var knownLeader: (pid: Int32, start: UInt64)?

  private static func leaderStart(_ leader: Int32) -> UInt64? {
    guard leader > 0 else { return nil }
    if let known = leaderLock.withLock({ knownLeader }), known.pid == leader { return known.start }
    guard let start = FileSyscalls.processStartTime(leader) else { return nil }
    leaderLock.withLock { knownLeader = (leader, start) }
    return start
  }

  /// The name of `uid` in the passwd database, or nil when it has none.
  package static func passwdName(of uid: UInt32) -> String? {
    let name = lookUpName(of: uid)
    return name == "uid-\(uid)" ? nil : name
  }

  /// The terminal on standard input, as PAM applications pass it in PAM_TTY; empty when there is none.
  package static func standardInputTerminal() -> String {
    Syscalls.terminalName(0) ?? ""
  }

  /// The reuse window's scope (with the requester's uid, kept beside it in the stamp): the login session, the
  /// terminal session's leader and its start time, and the terminal. A recycled terminal number, a new login,
  /// or another terminal or session of the same user is another scope. Empty when the request may not reuse.
  package var reuseScope: String {
    guard reuseAllowed else { return "" }
    func part(_ value: String) -> String { value.isEmpty ? "-" : value }
    return "session=" + part(loginSession) + ",leader=" + part(sessionLeader) + ",tty=" + part(tty)
  }

  /// True when someone other than `user` asks, and it is not root (login, display managers and root's own
  /// tools run as root and ask on the user's behalf).
  package func isOtherRequester(than user: UserName) -> Bool {
    requesterUID != 0 && requesterName != user.value
  }

  /// `text` as one printable line for the state files and logs: printable ASCII, at most 200 bytes; any other
  /// byte becomes "?".
  package static func line(_ text: String) -> String { LogText.line(text) }

  /// `text` as a token safe for the state files and logs: printable ASCII without spaces, at most 64 bytes;
  /// any other byte becomes "?".
  package static func token(_ text: String) -> String { LogText.token(text) }

  /// The last uid looked up and its name: a screen locker or display manager asks for the same user each time,
  /// and the name is only shown, never trusted.
  private static let lastNameLock = Mutex()
  nonisolated(unsafe) private static var lastName: (uid: UInt32, name: String)?

  private static func userName(of uid: UInt32) -> String {
    if let last = lastNameLock.withLock({ lastName }), last.uid == uid { return last.name }
    let name = lookUpName(of: uid)
    lastNameLock.withLock { lastName = (uid, name) }
    return name
  }

  private static func lookUpName(of uid: UInt32) -> String { Syscalls.userName(of: uid) ?? "uid-\(uid)" }

  /// The audit session id, which pam_loginuid sets at login and the user cannot change; empty when unset.
  private static func auditSession() -> String {
    guard let bytes = try? readSmallFile("/proc/self/sessionid", limit: 32) else { return "" }
    let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
    return text == "4294967295" ? "" : text
  }
}
