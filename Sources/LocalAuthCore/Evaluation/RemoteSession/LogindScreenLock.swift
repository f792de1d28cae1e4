/// Whether the desktop holds a user's screen locked, for data protection (DeviceLock; docs/KEYCHAIN.md, "Data
/// protection"): where logind runs, a user is unlocked only while one of their sessions at the machine — not
/// remote, of class user, on a seat or a VT, not closing — has its `LockedHint` unset. Screen lockers and desktops
/// set that hint through logind (GNOME Shell, KDE's locker, xss-lock for i3lock, swayidle); logind keeps it in
/// memory only, so it is asked over the system bus (LogindBus). A user with no such session is locked (nobody
/// unlocked the machine for them); a file that is not root's, or a hint that cannot be asked, counts as locked.
extension RemoteSession {
  /// The desktop's word on `uid`'s screen lock: true when no session of the user's at the machine is unlocked,
  /// false when one is, nil when logind does not run (nothing reports a lock: DeviceLock then goes by the first
  /// unlock alone). `lockedHint` asks logind for a session's LockedHint (nil: it cannot say).
  package static func screenLocked(
    uid: UInt32, _ system: System, lockedHint: (_ session: String) -> Bool?
  ) -> Bool? {
    guard logindRuns(system) else { return nil }
    guard let folder = system.facts.status(logindSessions, false), folder.isDirectory, folder.isRootsAlone,
      case .contents(let user) = logindFile(logindUsers + "/" + String(uid), system)
    else { return true }
    var sessions: [String] = []
    logindFields(user) { key, value in
      if key == "SESSIONS" { sessions = value.split(separator: " ").map(String.init) }
    }
    for id in sessions.prefix(64) where isSessionName(id) {
      guard case .contents(let bytes) = logindFile(logindSessions + "/" + id, system) else { continue }
      let record = LogindRecord(bytes)
      let atTheMachine =
        record.uid == uid && !record.remote && record.remoteHost.isEmpty && record.sessionClass == "user"
        && (!record.seat.isEmpty || record.vtnr > 0) && record.state != "closing"
      if atTheMachine, lockedHint(id) == false { return false }
    }
    return true
  }
}
