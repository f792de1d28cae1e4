/// What the prompt registry keeps for the one-request rule (docs/RULES.md, "One finger request at a time"): a
/// conflict mark in a prompt's folder naming the other request, and per user a record of the prompt that ended
/// last, so that a request starting within two seconds of another one's end is not taken for the only one.
///
/// Both live in the runtime folder (tmpfs on an installed system), are root's, written whole (a mark by a link,
/// a record by a rename) and read without following links. A mark is the other prompt's announcement; the
/// record is the ended prompt's announcement with the time it ended (`AuthClock.uptime()`). One record per user,
/// overwritten: the folder stays as small as the user list.
extension PromptRegistry {
  /// The name of a prompt's conflict mark in its folder.
  static let conflictMark = "conflict"

  /// How long after a prompt ends a new prompt of the same user still conflicts with it, in seconds.
  package static let recentWindow: Double = 2

  /// The folder of the records of prompts that ended.
  package var endedFolder: String { root + "/ended" }

  /// Marks prompt `id` as conflicting with `other` (its announcement is written). true when this call made the
  /// mark, false when the prompt was marked already, nil when the prompt's folder is gone.
  package func mark(_ id: String, naming other: PromptAnnouncement) -> Bool? {
    guard PromptAnnouncement.isValidID(id) else { return nil }
    let path = folder(of: id)
    var random = SystemRandomNumberGenerator()
    let staging = ".mark-" + String(random.next() as UInt64, radix: 16)
    do {
      try FileSyscalls.atomicWrite(other.encode(), directory: path, name: staging, flushFolder: false, flushFile: false)
    } catch {
      return nil  // the prompt withdrew meanwhile: its folder is gone
    }
    let placed = try? FileSyscalls.linkExclusive(path + "/" + staging, to: path + "/" + Self.conflictMark)
    // The staging name goes before the prompt is woken: a mark is read only with one name (readTrustedFile).
    _ = try? FileSyscalls.claim(path + "/" + staging)
    PromptDoorbell.ring(doorbell(of: id))
    return placed ?? nil
  }

  /// The conflict mark of prompt `id`: nil while it has none; `.marked(nil)` when its mark cannot be read.
  package func conflict(of id: String) -> ConflictMark? {
    guard PromptAnnouncement.isValidID(id) else { return nil }
    let path = folder(of: id) + "/" + Self.conflictMark
    guard FileSyscalls.exists(path) else { return nil }
    // A mark just placed still has its staging name for a moment (two links): read again shortly.
    for attempt in 0..<4 {
      if attempt > 0 { Syscalls.sleep(0.005) }
      if let bytes = try? FileSyscalls.readTrustedFile(path, limit: 4096),
        let other = try? PromptAnnouncement.decode(bytes, path: path)
      {
        return .marked(other)
      }
    }
    // A mark that is there but not what the registry writes still withdraws the prompt: fail closed.
    return .marked(nil)
  }

  /// A prompt's conflict mark.
  package enum ConflictMark: Equatable {
    /// The prompt conflicts with the request named, or with one that cannot be named.
    case marked(PromptAnnouncement?)
  }

  /// Records that `announcement`'s prompt ended at `uptime`; a failure only loses the two-second window.
  package func noteEnded(_ announcement: PromptAnnouncement, at uptime: Double) {
    let text = announcement.encode() + Array("ended \(uptime)\n".utf8)
    do {
      try FileSyscalls.ensureDirectory(endedFolder)
      try FileSyscalls.atomicWrite(
        text, directory: endedFolder, name: announcement.user.value, flushFolder: false, flushFile: false)
    } catch {}
  }

  /// The prompt of `user` that ended within the last `recentWindow` seconds before `uptime`, when another
  /// program asked for it: not the process `waiter` (pid and start time) waited in (sudo's next try), nor one
  /// asked by `requester`'s own process (an app's next context, served by another helper process); nil otherwise.
  package func recentlyEnded(
    for user: UserName, at uptime: Double, excluding waiter: (pid: Int32, start: UInt64), requester: RequestOrigin
  ) -> PromptAnnouncement? {
    let path = endedFolder + "/" + user.value
    guard let bytes = try? FileSyscalls.readTrustedFile(path, limit: 4096),
      let ended = try? PromptAnnouncement.decode(bytes, path: path), ended.user == user,
      let fields = try? keyValueLines(bytes, header: PromptAnnouncement.header, path: path),
      let at = fields["ended"].flatMap({ Double($0) }), at.isFinite
    else { return nil }
    let age = uptime - at
    // A record from before a reboot (a runtime folder that is not tmpfs) reads as ended in the future: ignored.
    guard age >= 0, age <= Self.recentWindow else { return nil }
    if ended.waiterPID == waiter.pid && ended.processStart == waiter.start { return nil }
    if ended.origin.processID == requester.processID && ended.origin.requesterUID == requester.requesterUID { return nil }
    return ended
  }
}
