/// The biometric prompts that wait right now, one folder each: `<runtime>/prompts/<id>/` holds the announcement
/// (`prompt`) and the events presented to that prompt (`*.event`). The runtime folder (`runtime_dir=`, default
/// /run/localauth) is on tmpfs on an installed system: nothing here outlives a boot, and a prompt costs the
/// state disk nothing.
///
/// A touch goes to one named prompt and is read by that prompt only, once: the prompt claims an event by
/// removing its file, and of two claims exactly one succeeds. A touch made while no prompt waits has nowhere
/// to go. Folders are root's (0700) and nothing is followed through a symbolic link; an announcement whose
/// process is gone (or whose pid now belongs to another process) is stale and removed by whoever lists it.
package struct PromptRegistry: Sendable {
  /// The runtime folder (Options.runtimeRoot).
  package let root: String
  /// The process whose prompts this registry announces: this one, unless a test stands in for another.
  package let waiterPID: Int32

  /// The registry of a runtime folder, announcing prompts of `waiterPID` (this process).
  package init(root: String, waiterPID: Int32 = Syscalls.processID) {
    self.root = root
    self.waiterPID = waiterPID
  }

  /// The folder holding every waiting prompt.
  package var folder: String { root + "/prompts" }

  /// Checks the folders above the runtime folder the way the state folder's are checked (root's, not writable
  /// by others unless sticky), then makes the runtime folder and its prompts folder if they are missing.
  package func prepare() throws(StateError) {
    try FileSyscalls.checkTrustedAncestors(of: root, role: "the runtime folder")
    try FileSyscalls.ensureDirectory(root)
    try FileSyscalls.ensureDirectory(folder)
  }

  /// The folder of one prompt.
  package func folder(of id: String) -> String { folder + "/" + id }

  /// Announces a prompt of this process for `user` asked by `origin`, and returns it with its new id.
  package func announce(
    user: UserName, modality: Modality, origin: RequestOrigin, at time: WallTime
  ) throws(StateError) -> PromptAnnouncement {
    try prepare()
    var random = SystemRandomNumberGenerator()
    for _ in 0..<16 {
      let id = String(String(random.next() as UInt32, radix: 16).leftPadded(to: 8).suffix(8))
      // Made complete under a hidden name, then renamed into place: a prompt is never seen half-written, and
      // one rename wakes whoever watches the folder (`localauthctl touch --wait`).
      let staging = folder + "/.new-" + id
      guard try FileSyscalls.createDirectory(staging) else { continue }
      let waiter = waiterPID
      let announcement = PromptAnnouncement(
        id: id, user: user, modality: modality, origin: origin, waiterPID: waiter,
        processStart: FileSyscalls.processStartTime(waiter) ?? 0, started: time)
      do {
        try PromptDoorbell.install(staging + "/" + Self.doorbell)
        try FileSyscalls.atomicWrite(
          announcement.encode(), directory: staging, name: "prompt", flushFolder: false, flushFile: false)
        if try FileSyscalls.renameDirectory(staging, to: folder(of: id)) { return announcement }
      } catch {
        discardStaging(staging)
        throw error
      }
      discardStaging(staging)
    }
    throw .io(path: folder, operation: "choose a prompt id in", errno: 17)
  }

  /// The name of a prompt's doorbell FIFO.
  static let doorbell = "wake"

  /// The doorbell of prompt `id`, for its waiting process to listen at.
  package func doorbell(of id: String) -> String { folder(of: id) + "/" + Self.doorbell }

  private func discardStaging(_ staging: String) {
    for name in ["prompt", Self.doorbell] { _ = try? FileSyscalls.claim(staging + "/" + name) }
    _ = try? FileSyscalls.removeDirectory(staging)
  }

  /// Withdraws a prompt: its announcement goes first, so no new touch is delivered, then the folder.
  ///
  /// An event presented to it and not read is left for the `localauthctl touch` that presented it, which
  /// claims it back and reports that the prompt ended first; `discardingEvents` removes such events too
  /// (for prompts whose process is gone).
  package func withdraw(_ id: String, discardingEvents: Bool = false) {
    guard PromptAnnouncement.isValidID(id) else { return }
    let path = folder(of: id)
    try? FileSyscalls.remove(path + "/prompt")
    for name in (try? FileSyscalls.listDirectory(path)) ?? [] where discardingEvents || !name.hasSuffix(".event") {
      _ = try? FileSyscalls.claim(path + "/" + name)
    }
    _ = try? FileSyscalls.removeDirectory(path)
  }

  /// The prompts waiting now (for `user` only, when given), oldest first; stale ones are removed.
  package func waiting(for user: UserName? = nil) throws(StateError) -> [PromptAnnouncement] {
    // The listing trusts only what root alone can change: the folders above, the runtime folder and this one.
    try FileSyscalls.checkTrustedAncestors(of: folder, role: "the runtime folder")
    guard FileSyscalls.exists(folder) else { return [] }
    try FileSyscalls.checkTrustedDirectory(folder)
    var found: [PromptAnnouncement] = []
    for id in try FileSyscalls.listDirectory(folder) where PromptAnnouncement.isValidID(id) {
      let path = folder(of: id) + "/prompt"
      let announcement: PromptAnnouncement
      do {
        guard let bytes = try FileSyscalls.readTrustedFile(path, limit: 4096) else {
          // Withdrawn, with events nobody claimed back (their touch ended) or a conflict mark written as it went
          // (PromptConflict), or announced a moment ago and not written yet: only a folder whose announcement is
          // gone for good holds events or a mark.
          let names = (try? FileSyscalls.listDirectory(folder(of: id))) ?? []
          if names.contains(where: { $0.hasSuffix(".event") || $0 == Self.conflictMark }) {
            withdraw(id, discardingEvents: true)
          }
          continue
        }
        announcement = try PromptAnnouncement.decode(bytes, path: path)
      } catch {
        continue
      }
      guard announcement.id == id, isAlive(announcement) else {
        withdraw(id, discardingEvents: true)
        continue
      }
      if let user, announcement.user != user { continue }
      found.append(announcement)
    }
    return found.sorted { ($0.started, $0.id) < ($1.started, $1.id) }
  }

  /// True while the announcing process runs (the same process: its start time matches).
  package func isAlive(_ announcement: PromptAnnouncement) -> Bool {
    FileSyscalls.processStartTime(announcement.waiterPID) == announcement.processStart
  }

  /// Presents `event` to prompt `id`; returns the event file's path, which disappears once the prompt read it.
  package func present(_ event: SensorEvent, to id: String, at time: WallTime) throws(StateError) -> String {
    guard PromptAnnouncement.isValidID(id) else { throw .io(path: folder, operation: "find prompt \(id) in", errno: 2) }
    var random = SystemRandomNumberGenerator()
    let name = String(Int64(time.seconds * 1_000_000), radix: 10).leftPadded(to: 20) + "-"
      + String(random.next() as UInt64, radix: 16) + ".event"
    try FileSyscalls.checkTrustedDirectory(folder(of: id))
    try FileSyscalls.atomicWrite(
      SensorEventFile.encode(SensorEventFile.Entry(event: event, created: time)), directory: folder(of: id), name: name,
      flushFolder: false, flushFile: false)
    PromptDoorbell.ring(doorbell(of: id))
    return folder(of: id) + "/" + name
  }

  /// How a presented event ended.
  package enum Delivery: Equatable, Sendable {
    /// The prompt read it (it may have matched or not: the sensor never tells).
    case read
    /// The prompt ended, or its process went away, before reading it; it was taken back.
    case promptEnded
  }

  /// Waits until the prompt reads the event at `eventPath` (from `present`), ends without it, or `limit`
  /// seconds pass on `clock` (the event is then taken back).
  package func awaitDelivery(
    of eventPath: String, to announcement: PromptAnnouncement, clock: AuthClock, limit: Double
  ) throws(StateError) -> Delivery {
    let end = clock.uptime() + limit
    let path = folder(of: announcement.id)
    let watch = FolderWatch(path)
    while true {
      watch.drain()
      if !FileSyscalls.exists(eventPath) { return .read }
      let ended = !FileSyscalls.exists(path + "/prompt") || !isAlive(announcement) || clock.uptime() >= end
      if ended {
        // Claiming it back decides: if the prompt took it in its last moment, the claim fails and it was read.
        guard try FileSyscalls.claim(eventPath) else { return .read }
        if !isAlive(announcement) || !FileSyscalls.exists(path + "/prompt") {
          withdraw(announcement.id, discardingEvents: true)
        }
        return .promptEnded
      }
      clock.sleep(watch.descriptor >= 0 ? 0.1 : 0.005, wakingOn: watch.descriptor)
    }
  }

  /// Claims and returns the oldest event presented to prompt `id` that has not expired; nil when none.
  package func take(from id: String, now: WallTime, expiry: Double, log: AuthLog) throws(StateError) -> SensorEvent? {
    let path = folder(of: id)
    let names = try FileSyscalls.listDirectory(path).filter { $0.hasSuffix(".event") && !$0.hasPrefix(".") }.sorted()
    for name in names {
      let file = path + "/" + name
      let entry: SensorEventFile.Entry
      do {
        guard let bytes = try FileSyscalls.readTrustedFile(file, limit: 16 * 1024) else { continue }
        entry = try SensorEventFile.decode(bytes, path: file)
      } catch {
        log.log(.warning, "Discarded sensor event \(file): \(error).")
        try? FileSyscalls.remove(file)
        continue
      }
      // Removing the file is the claim: an event is read by one prompt, once.
      guard try FileSyscalls.claim(file) else { continue }
      let age = now.since(entry.created)
      // Stamped further ahead than it may live (the clock was set back since) counts as expired too.
      if age > expiry || age < -expiry {
        log.log(.notice, "Discarded a sensor event for prompt \(id) stamped \(wholeSeconds(abs(age))) seconds away from now (expired).")
        continue
      }
      return entry.event
    }
    return nil
  }
}

extension String {
  func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
