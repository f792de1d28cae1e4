/// logind as an authority on where a request comes from, where it runs (docs/RULES.md, rule 2, "logind"): what
/// systemd-logind, a root service, writes of each session and user under /run/systemd (systemd 252's
/// session_save and user_save), and where a process's cgroup places it.
///
/// - A process in a logind session is local only when that session is not remote (`REMOTE=0`, no `REMOTE_HOST`),
///   of class `user` or `greeter`, has a seat or a VT, is not closing, and is the active session of its seat
///   (`ACTIVE=1`: the one on the screen; a session switched away from is not).
/// - A process of the user's service manager (`user@UID.service`: GNOME Terminal's server, what D-Bus starts) has
///   no logind session: it is judged by the user's display session (`DISPLAY=` of /run/systemd/users/UID), as
///   polkit does, with the same rules and the ledger's word on that session; no display session is not local.
/// - A file or folder of logind's that is not root's alone is not believed: the request is not local.
///
/// Only root moves a process between a session's scope and the user manager (cgroup v2 migration needs write
/// access to their common ancestor, user-UID.slice, root's); a user may make sub-cgroups inside user@UID.service
/// only, so the placement is read from the components right below the user's slice. Paths are as the reader's
/// cgroup namespace shows them; a process that could make its own namespace runs no setuid program with
/// privileges (that needs a user namespace). These facts change (a seat switches sessions, a user's display
/// session ends), so this part is asked at each request and never remembered.
extension RemoteSession {
  /// The folder that exists when systemd is PID 1 (sd_booted).
  package static let systemdRunning = "/run/systemd/system"
  /// logind's per-user state files (`/run/systemd/users/UID`).
  package static let logindUsers = "/run/systemd/users"

  /// Where a process's cgroup places it among logind's units.
  enum LogindPlacement: Equatable {
    /// In `session-ID.scope` of its user's slice: a process of logind session ID.
    case session(String)
    /// In `user@UID.service`: a process of the user's service manager, in no logind session.
    case userManager(UInt32)
    /// Anywhere else (a system service, init's scope), or the cgroup cannot be read.
    case elsewhere
  }

  /// What a session's state file (`/run/systemd/sessions/ID`) says, as far as the rules need.
  struct LogindRecord: Equatable {
    /// `UID=`: whose session it is.
    var uid: UInt32?
    /// `ACTIVE=1`: the active session of its seat (always 1 for a session without a seat).
    var active = false
    /// `STATE=`: online, active or closing.
    var state = ""
    /// `REMOTE=1`: opened from the network (pam_systemd: a PAM_RHOST that is not the local host).
    var remote = false
    /// `REMOTE_HOST=`, as logind escaped it.
    var remoteHost = ""
    /// `SEAT=`: the seat, empty for none.
    var seat = ""
    /// `VTNR=`: the virtual terminal, 0 for none.
    var vtnr: UInt32 = 0
    /// `CLASS=`: user, greeter, lock-screen, background.
    var sessionClass = ""
    /// `AUDIT=`: the session's audit session.
    var audit: UInt32?

    /// Reads a state file's KEY=VALUE lines.
    @inline(never)
    init(_ bytes: [UInt8]) {
      RemoteSession.logindFields(bytes) { key, value in
        switch key {
        case "UID": uid = UInt32(value)
        case "ACTIVE": active = value == "1"
        case "STATE": state = value
        case "REMOTE": remote = value == "1"
        case "REMOTE_HOST": remoteHost = value
        case "SEAT": seat = value
        case "VTNR": vtnr = UInt32(value) ?? 0
        case "CLASS": sessionClass = value
        case "AUDIT": audit = UInt32(value)
        default: break
        }
      }
    }

    /// Why session `id` is remote (`REMOTE=1`, a `REMOTE_HOST`), in one phrase; nil when it is not.
    @inline(never)
    func remoteReason(_ id: String) -> String? {
      if remote { return "logind session " + id + " is remote (REMOTE=1)" }
      if !remoteHost.isEmpty { return "logind session " + id + " has the remote host " + LogText.token(remoteHost) }
      return nil
    }

    /// Why session `id` is not local, in one phrase; nil when it is local and active. The classes that can be
    /// local: a user's login and a display manager's greeter.
    @inline(never)
    func reason(_ id: String) -> String? {
      if let remote = remoteReason(id) { return remote }
      let session = "logind session " + id
      if sessionClass != "user" && sessionClass != "greeter" {
        return sessionClass.isEmpty ? session + " has no class" : session + " is of class " + LogText.token(sessionClass)
      }
      if seat.isEmpty && vtnr == 0 { return session + " has no seat" }
      if state == "closing" { return session + " is closing (its login has ended)" }
      if !active { return session + " is not the active session of " + (seat.isEmpty ? "its seat" : LogText.token(seat)) }
      return nil
    }
  }

  /// Calls `body` with each KEY=VALUE line of a logind state file (comments skipped, quotes around a value removed).
  @inline(never)
  static func logindFields(_ bytes: [UInt8], _ body: (Substring, String) -> Void) {
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
      guard let equals = line.firstIndex(of: "=") else { continue }
      var value = String(line[line.index(after: equals)...]).trimmingWhitespace()
      if value.count >= 2, let quote = value.first, quote == "\"" || quote == "'", value.last == quote {
        value = String(value.dropFirst().dropLast())
      }
      body(line[..<equals], value)
    }
  }

  /// True when systemd is PID 1 (/run/systemd/system is a folder) and logind keeps its sessions folder.
  static func logindRuns(_ system: System) -> Bool {
    system.facts.status(systemdRunning, false)?.isDirectory == true && system.exists(logindSessions)
  }

  /// Where `pid`'s cgroup (the unified hierarchy's `0::` line, else the `name=systemd` one) places it: the
  /// components right below `/user.slice/user-UID.slice/` name a session scope or the user manager.
  @inline(never)
  static func logindPlacement(_ pid: Int32, _ system: System) -> LogindPlacement {
    guard let bytes = system.read("/proc/\(pid)/cgroup", 65536) else { return .elsewhere }
    var path: Substring?
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
      guard parts.count == 3 else { continue }
      if parts[0] == "0" && parts[1].isEmpty { path = parts[2]; break }
      if parts[1] == "name=systemd" { path = parts[2] }
    }
    guard let path, path.hasPrefix("/") else { return .elsewhere }
    let components = path.split(separator: "/", omittingEmptySubsequences: false)
    guard components.count >= 4, components[1] == "user.slice" else { return .elsewhere }
    let slice = components[2]
    guard slice.hasPrefix("user-"), slice.hasSuffix(".slice"),
      let uid = UInt32(slice.dropFirst("user-".count).dropLast(".slice".count))
    else { return .elsewhere }
    let unit = components[3]
    if unit == "user@\(uid).service" { return .userManager(uid) }
    if unit.hasPrefix("session-"), unit.hasSuffix(".scope") {
      let name = String(unit.dropFirst("session-".count).dropLast(".scope".count))
      if isSessionName(name) { return .session(name) }
    }
    return .elsewhere
  }

  /// The logind session of `pid`: its session scope; else, outside the user manager, its audit session
  /// (/proc/PID/sessionid), which is logind's session id where pam_loginuid runs.
  static func logindSession(_ pid: Int32, _ system: System) -> String? {
    switch logindPlacement(pid, system) {
    case .session(let name): return name
    case .userManager: return nil
    case .elsewhere:
      guard let bytes = system.read("/proc/\(pid)/sessionid", 32) else { return nil }
      let name = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
      return name != "4294967295" && isSessionName(name) ? name : nil
    }
  }

  /// A session name safe as a file name: 1 to 64 ASCII letters and digits.
  static func isSessionName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= 64
      && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }
  }

  /// "logind session N is remote (…)" when logind's folder is there and the process's session says so: the part
  /// that only adds remoteness, asked also while a session is being opened, and remembered with the process.
  static func logindReason(_ pid: Int32, _ system: System) -> String? {
    guard system.exists(logindSessions), let session = logindSession(pid, system),
      let bytes = system.read(logindSessions + "/" + session, 65536)
    else { return nil }
    return LogindRecord(bytes).remoteReason(session)
  }

  /// A state file of logind's: its bytes, or why it is not believed.
  enum LogindFile {
    /// The contents of a regular file root's alone.
    case contents([UInt8])
    /// Missing or unreadable.
    case missing
    /// Not a regular file, or others than root may write it.
    case notRoots
  }

  /// Reads a logind state file, believed only when it is a regular file root's alone.
  static func logindFile(_ path: String, _ system: System) -> LogindFile {
    guard let status = system.facts.status(path, false) else { return .missing }
    guard status.isRegular, status.isRootsAlone else { return .notRoots }
    guard let bytes = system.read(path, 65536) else { return .missing }
    return .contents(bytes)
  }

  /// Why logind does not call the request of `pid` local; nil when it does, or when the process is in no logind
  /// session and not in the user manager (the ledger's and ancestry's rules decide then). Asked while logind runs.
  @inline(never)
  static func logindLocalityReason(_ pid: Int32, placement: LogindPlacement, _ system: System) -> String? {
    guard let folder = system.facts.status(logindSessions, false), folder.isDirectory, folder.isRootsAlone else {
      return "logind's folder " + logindSessions + " is not root's"
    }
    switch placement {
    case .session(let id): return sessionLocalityReason(id, uid: nil, system)
    case .userManager(let uid): return userManagerReason(pid, uid: uid, system)
    case .elsewhere:
      guard let id = logindSession(pid, system), system.facts.status(logindSessions + "/" + id, false) != nil else {
        return nil
      }
      return sessionLocalityReason(id, uid: nil, system)
    }
  }

  /// Why logind session `id` (of `uid`, when given) is not local and active, from its state file.
  @inline(never)
  static func sessionLocalityReason(_ id: String, uid: UInt32?, _ system: System) -> String? {
    guard isSessionName(id) else { return "logind names the session " + LogText.token(id) + ", which is not a session name" }
    switch logindFile(logindSessions + "/" + id, system) {
    case .missing: return "logind has no record of session " + id
    case .notRoots: return "logind's record of session " + id + " is not root's"
    case .contents(let bytes):
      let record = LogindRecord(bytes)
      if let uid, record.uid != uid { return "logind session " + id + " is not of uid " + String(uid) }
      return record.reason(id)
    }
  }

  /// Why a process of `user@UID.service` is not local: the user's display session is missing or not local and
  /// active, or the ledger holds it as opened remotely (or cannot speak for it, as for its own processes).
  @inline(never)
  static func userManagerReason(_ pid: Int32, uid: UInt32, _ system: System) -> String? {
    let user = String(uid)
    let process = "process " + String(pid) + " is in user@" + user + ".service"
    let display: String
    switch logindFile(logindUsers + "/" + user, system) {
    case .missing: return process + " and logind has no record of uid " + user
    case .notRoots: return process + " and logind's record of uid " + user + " is not root's"
    case .contents(let bytes):
      var found = ""
      logindFields(bytes) { key, value in if key == "DISPLAY" { found = value } }
      display = found
    }
    guard !display.isEmpty else { return process + " and uid " + user + " has no display session" }
    let judged = process + ", judged by the display session of uid " + user + ": "
    if let reason = sessionLocalityReason(display, uid: uid, system) { return judged + reason }
    // The same ledger rules as for the display session's own processes.
    guard case .contents(let bytes) = logindFile(logindSessions + "/" + display, system),
      let audit = LogindRecord(bytes).audit ?? UInt32(display)
    else { return judged + "logind session " + display + " has no audit session" }
    guard let reason = ledgerReason(audit, owner: { uid }, system) else { return nil }
    return reason.hasPrefix(missingLedger) ? reason : judged + reason
  }
}
