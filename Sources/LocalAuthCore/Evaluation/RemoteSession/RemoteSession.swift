/// Decides whether an authentication comes from a remote (network) login, from facts the caller cannot forge.
///
/// Checked in this order, the first hit giving the reason: a non-empty PAM_RHOST (localhost included: a tunnel is
/// still a network login); the utmp record of the terminal (a host means a network login); the kernel's login
/// session of the process (LoginSessionCheck.swift: no session, a session recorded remote or never recorded, a
/// utmp login from a remote host in it); the logind session of the process (`REMOTE=1` or a `REMOTE_HOST`); an
/// ancestor process that is a network login daemon (sshd, telnetd, …); while logind runs, logind's word on the
/// process's session, or on its user's display session for a process of the user manager (LogindSession.swift:
/// not remote, a seat, the active one); and last the SSH_* variables. The login session is the anchor: it is what a user cannot shed by setsid, script, tmux or nohup.
/// The environment, PAM_RHOST and the ancestry may only make a session remote, never local (docs/RULES.md, rule 2).
public enum RemoteSession {
  /// What the caller knows about the request; the rest is read from the system.
  public struct Input: Equatable, Sendable {
    /// PAM_RHOST; empty when unset.
    package var remoteHost: String
    /// PAM_TTY ("/dev/pts/3", "pts/3" or ":0"); empty when unset.
    package var tty: String
    /// The values of `RemoteSession.variables` that are set, from the PAM or the process environment.
    package var environment: [String: String]
    /// The process whose session and ancestry are examined (the PAM application: getpid()).
    package var processID: Int32
    /// The process's audit session as already read by the caller (RequestOrigin.loginSession: "" for unset); nil
    /// reads it from /proc.
    package var loginSession: String?

    /// Describes a request.
    public init(
      remoteHost: String = "", tty: String = "", environment: [String: String] = [:], processID: Int32,
      loginSession: String? = nil
    ) {
      self.remoteHost = remoteHost
      self.tty = tty
      self.environment = environment
      self.processID = processID
      self.loginSession = loginSession
    }
  }

  /// The decision and the one fact behind it, in words for a debug log line.
  public struct Verdict: Equatable, Sendable {
    /// True for a remote session.
    package var isRemote: Bool
    /// Why, as a phrase ("ancestor process 812 is sshd").
    package var reason: String
    /// True when the session is not local only because there is no session ledger (the administrator is told).
    package var missingLedger: Bool { reason.hasPrefix(RemoteSession.missingLedger) }

    /// Describes a decision.
    public init(isRemote: Bool, reason: String) {
      self.isRemote = isRemote
      self.reason = reason
    }
  }

  /// The system reads the detection makes: the process facts (ProcessFacts, the one seam to /proc, logind's and
  /// utmp's files) and the module's session ledger, so that tests can feed fake files and ledgers.
  public struct System: Sendable {
    /// The one seam to /proc and the files the detection reads.
    package var facts: ProcessFacts
    /// What the module's session ledger says of an audit session (SessionLedger).
    package var sessionLedger: @Sendable (_ session: UInt32) -> SessionLedger.Lookup

    /// True while the session being opened is judged (SessionLedger.recordOpening): the ledger cannot speak for
    /// it yet, and the rule that a user's session without a ledger is not local does not apply to it.
    var judgesOpening = false
    /// True when what belongs to a process (its logind session and ancestry) may be remembered per process.
    package var remembersProcesses: Bool
    /// Names the system in the remembered facts (the runtime folder of its ledger).
    var identity: String

    /// Describes a system; by default it has no session ledger.
    package init(
      facts: ProcessFacts, sessionLedger: @escaping @Sendable (UInt32) -> SessionLedger.Lookup = { _ in .noLedger },
      remembersProcesses: Bool = false
    ) {
      self.facts = facts
      self.sessionLedger = sessionLedger
      self.remembersProcesses = remembersProcesses
      self.identity = ""
    }

    /// The contents of a file of at most `limit` bytes (ProcessFacts.read).
    func read(_ path: String, _ limit: Int) -> [UInt8]? { facts.read(path, limit) }
    /// True when the path exists.
    func exists(_ path: String) -> Bool { facts.status(path, true) != nil }
    /// The uid a process runs as, for the ancestry walk: the owner of /proc/PID (its effective uid, or root's for a
    /// setuid program, whose real uid the walk reads from getuid() when it is this process), else the real uid of
    /// its /proc/PID/status; nil when gone.
    func processOwner(_ pid: Int32) -> UInt32? {
      facts.status("/proc/\(pid)", true)?.owner ?? ProcessSnapshot(facts).realUID(pid)
    }

    /// The running system, with the session ledger of the runtime folder `runtimeRoot` (Options.runtimeRoot) for
    /// this boot.
    package static func live(runtimeRoot: String) -> System {
      let ledger = SessionLedger(root: runtimeRoot, bootID: SystemClock.bootID(readingFrom: SystemClock.bootIDPath))
      var system = System(facts: .live, sessionLedger: { ledger.lookUp($0) }, remembersProcesses: true)
      system.identity = runtimeRoot
      return system
    }
  }

  /// The login-session, logind and ancestry part of the decision for each process examined, remembered for the
  /// process's life in that login session. A process never gains a logind session or a network-login ancestor
  /// (reparenting only moves it under init or a subreaper), and a session's ledger entry is written by the
  /// process that opens it, before anything runs in it, and only ever raised; so a screen locker or display
  /// manager that authenticates again need not walk /proc again (the walk is most of the module's time on a
  /// reuse-window success). Keyed by pid, start time, audit session (pam_loginuid may start a new one in the
  /// same process) and the ledger's folder.
  private static let processFacts = Mutex()
  nonisolated(unsafe) private static var rememberedFacts:
    [Int32: (start: UInt64, session: UInt32?, system: String, managed: Bool, reason: String?)] = [:]

  /// The login-session, logind or ancestry reason for `pid`: the part that stays for the process's life from memory
  /// when the system allows it, then, while logind runs, logind's word on its session or its user's display
  /// session (LogindSession.swift), which is asked each time.
  static func processReason(_ pid: Int32, _ system: System, knownSession: String? = nil) -> String? {
    let session: UInt32? =
      if let knownSession { knownSession.isEmpty ? nil : UInt32(knownSession) } else { auditSession(pid, system) }
    // The session being opened is judged on what can make it remote only: it may not be active yet.
    let placement: LogindPlacement? =
      !system.judgesOpening && logindRuns(system) ? logindPlacement(pid, system) : nil
    var managed = false
    if case .userManager = placement { managed = true }
    if let reason = lastingReason(pid, session: session, managed: managed, system) { return reason }
    guard let placement else { return nil }
    return logindLocalityReason(pid, placement: placement, system)
  }

  /// The part of `processReason` that holds for the process's life in its login session.
  private static func lastingReason(_ pid: Int32, session: UInt32?, managed: Bool, _ system: System) -> String? {
    func compute() -> String? {
      var walked: Ancestry?
      func ancestry() -> Ancestry {
        if let walked { return walked }
        let facts = walkAncestry(from: pid, system)
        walked = facts
        return facts
      }
      return loginSessionReason(pid, session: session, system, userManager: managed, ancestry: ancestry)
        ?? logindReason(pid, system) ?? ancestry().daemon
    }
    // This process is always the same process (a forked child has another pid): no start time to read then.
    guard system.remembersProcesses, let start = pid == Syscalls.processID ? 0 : FileSyscalls.processStartTime(pid) else {
      return compute()
    }
    if let known = processFacts.withLock({ rememberedFacts[pid] }), known.start == start, known.session == session,
      known.system == system.identity, known.managed == managed
    {
      return known.reason
    }
    let reason = compute()
    processFacts.withLock { rememberedFacts = [pid: (start, session, system.identity, managed, reason)] }
    return reason
  }

  /// The environment variables that mark an SSH session (they can only add remoteness).
  package static let variables = ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"]
  /// Process names (comm) of network login daemons: a process below one of them is in a remote session.
  package static let networkDaemons: Set<String> = [
    "sshd", "sshd-session", "telnetd", "in.telnetd", "rlogind", "in.rlogind", "rshd", "in.rshd", "mosh-server",
    "dropbear",
  ]
  /// The most ancestors examined above the process.
  package static let maximumAncestry = 64
  /// logind's per-session state files.
  package static let logindSessions = "/run/systemd/sessions"
  /// The utmp file (glibc's _PATH_UTMP).
  package static let utmpPath = "/var/run/utmp"

  /// Whether the session of `input` is remote, and why.
  package static func detect(_ input: Input, system: System) -> Verdict {
    if !input.remoteHost.isEmpty { return Verdict(isRemote: true, reason: "PAM_RHOST is \(LogText.token(input.remoteHost))") }
    if let reason = utmpReason(input.tty, system) { return Verdict(isRemote: true, reason: reason) }
    if let reason = processReason(input.processID, system, knownSession: input.loginSession) {
      return Verdict(isRemote: true, reason: reason)
    }
    if let name = variables.first(where: { input.environment[$0] != nil }) {
      return Verdict(isRemote: true, reason: "\(name) is set")
    }
    return Verdict(
      isRemote: false,
      reason: "a login session opened at the machine; no remote host, utmp host, remote logind session, network "
        + "login daemon or SSH variable")
  }

  // MARK: utmp

  /// "utmp records a login on pts/3 from HOST" when the terminal's USER_PROCESS record names a host.
  static func utmpReason(_ tty: String, _ system: System) -> String? {
    let line = tty.hasPrefix("/dev/") ? String(tty.dropFirst("/dev/".count)) : tty
    guard !line.isEmpty, !line.hasPrefix(":"), let bytes = system.read(utmpPath, 1 << 20) else { return nil }
    for record in UtmpRecord.records(in: bytes) where record.type == UtmpRecord.userProcess && record.line == line {
      if !record.host.isEmpty && !isLocalDisplay(record.host) {
        return "utmp records the login on \(LogText.token(line)) from \(LogText.token(record.host))"
      }
    }
    return nil
  }

  /// True for an X display name (":0", ":1.0"), which terminal emulators record as their host.
  static func isLocalDisplay(_ host: String) -> Bool {
    let parts = host.utf8.dropFirst().split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    return host.hasPrefix(":") && parts.count <= 2
      && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }
  }

  // MARK: Ancestry

  /// What one walk from a process up to init finds (at most `maximumAncestry` generations).
  struct Ancestry {
    /// "ancestor process N is sshd" when the process or one of its ancestors is a network login daemon.
    var daemon: String?
    /// Why not every process up to init runs as root ("it runs as uid 1000"); nil when all do.
    var stranger: String?
  }

  /// Walks from `pid` up to init once: the first network login daemon, and the first process that does not run
  /// as root (this process by its real uid, the others by the owner of /proc/PID). A process that cannot be
  /// read, a loop or a chain too deep counts as not root's.
  static func walkAncestry(from pid: Int32, _ system: System) -> Ancestry {
    let snapshot = ProcessSnapshot(system.facts)
    var facts = Ancestry()
    var current = pid
    for _ in 0...maximumAncestry {
      let owner = current == Syscalls.processID ? Syscalls.realUserID : system.processOwner(current)
      guard current >= 1, let owner, let stat = snapshot.stat(current) else {
        if facts.stranger == nil { facts.stranger = "the ancestry of process \(current) cannot be read" }
        return facts
      }
      let parent = stat.parent
      if facts.daemon == nil, networkDaemons.contains(stat.name) {
        facts.daemon = (current == pid ? "the process \(current)" : "ancestor process \(current)") + " is \(LogText.token(stat.name))"
      }
      if facts.stranger == nil, owner != 0 {
        facts.stranger = current == pid ? "it runs as uid \(owner)" : "its ancestor process \(current) runs as uid \(owner)"
      }
      if current == 1 || parent < 1 || parent == current { return facts }
      current = parent
    }
    if facts.stranger == nil { facts.stranger = "its ancestry is deeper than \(maximumAncestry) processes" }
    return facts
  }
}
