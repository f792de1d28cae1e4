/// The administrator's side of the simulated sensor: enrolment captures, and touches or button presses
/// presented to a waiting prompt.
///
/// `localauthctl enroll` and `touch` call these, and so can a demo or a test harness, so that identities,
/// capture noise and the prompt folder's format live in the core only.
public struct SensorAdministration: Sendable {
  /// The state folder holding the world seed.
  package var stateRoot: String
  /// The runtime folder holding the waiting prompts (Options.runtimeRoot).
  package var runtimeRoot: String
  /// The clock that stamps enrolments and presented events, and measures waits.
  package var clock: AuthClock

  /// Creates the operations over a state folder and a runtime folder (by default the state folder, as
  /// Options.runtimeRoot derives it when `state_dir=` is given).
  public init(stateRoot: String, runtimeRoot: String? = nil, clock: AuthClock) {
    self.stateRoot = stateRoot
    self.runtimeRoot = runtimeRoot ?? stateRoot
    self.clock = clock
  }

  /// Enrolls `user`'s own `item` from simulated captures; the domain state changes.
  package func enroll(_ item: String, modality: Modality, for user: UserName, through admin: Administration) throws(LocalAuthError) {
    guard isValidItemName(item) else { throw .administration(.invalidName(item)) }
    let simulator = BiometricSimulator(worldSeed: try withStateErrors { () throws(StateError) in try WorldSeed.load(stateRoot: stateRoot) })
    var rng = SystemRandomNumberGenerator()
    let template = simulator.enroll(owner: user.value, item: item, modality: modality, at: clock.now(), using: &rng)
    try admin.enroll(template, for: user)
  }

  /// A capture of `owner`'s `item` (default: `user`'s own).
  ///
  /// - Parameter quality: the capture quality from 0 to 1; nil draws a typical placement.
  package func capture(
    _ item: String, modality: Modality, quality: Double?, from owner: String? = nil, for user: UserName
  ) throws(LocalAuthError) -> SensorEvent {
    guard isValidItemName(item) else { throw .administration(.invalidName(item)) }
    let simulator = BiometricSimulator(worldSeed: try withStateErrors { () throws(StateError) in try WorldSeed.load(stateRoot: stateRoot) })
    var rng = SystemRandomNumberGenerator()
    let identity = simulator.identity(owner: owner ?? user.value, item: item, modality: modality)
    let q = quality ?? BiometricSimulator.typicalQuality(using: &rng)
    return .sample(simulator.capture(identity, modality: modality, quality: q, using: &rng))
  }

  /// The prompts waiting now, for `user` only when given.
  package func waitingPrompts(for user: UserName? = nil) throws(LocalAuthError) -> [PromptAnnouncement] {
    try withStateErrors { () throws(StateError) in try PromptRegistry(root: runtimeRoot).waiting(for: user) }
  }

  /// The conflict mark of prompt `id` (docs/RULES.md, "One finger request at a time"): nil when it has none.
  package func conflict(of id: String) -> PromptRegistry.ConflictMark? { PromptRegistry(root: runtimeRoot).conflict(of: id) }

  /// Presents `event` to the one prompt waiting for `user` (or to prompt `id`), and returns once that prompt
  /// read it; a touch goes nowhere else.
  ///
  /// Without `id` only a prompt that the user or root asked for is a candidate (the requester's uid is the user's
  /// or 0): another user's `su USER` takes a touch only when `id` names it. With `wait` > 0 it waits that long for
  /// the prompt to appear; an event whose prompt ended before reading it is then offered to the next prompt that
  /// appears, unless `id` pins the prompt. `readLimit` bounds the wait for the prompt to read it.
  package func present(
    _ event: SensorEvent, for user: UserName, prompt id: String? = nil, wait: Double = 0, readLimit: Double = 30
  ) throws(LocalAuthError) -> PromptAnnouncement {
    let registry = PromptRegistry(root: runtimeRoot)
    try withStateErrors { () throws(StateError) in try registry.prepare() }
    let end = clock.uptime() + max(wait, 0)
    // Wakes the wait as soon as a prompt is renamed into place.
    let watch = FolderWatch(registry.folder)
    let ownUID = Syscalls.userID(named: user.value)
    var othersPrompts: [PromptAnnouncement] = []
    while true {
      watch.drain()
      let waiting = try withStateErrors { () throws(StateError) in try registry.waiting(for: user) }
      let own = waiting.filter { $0.origin.requesterUID == 0 || $0.origin.requesterUID == ownUID }
      othersPrompts = waiting.filter { !own.contains($0) }
      let chosen = id.map { id in waiting.filter { $0.id == id } } ?? own
      if chosen.count > 1 { throw .touchDelivery(.severalPrompts(user: user, waiting: chosen)) }
      if let prompt = chosen.first {
        // The prompt may end between the listing and the write: its folder is gone then.
        if let file = try? registry.present(event, to: prompt.id, at: clock.now()) {
          let delivery = try withStateErrors { () throws(StateError) in
            try registry.awaitDelivery(of: file, to: prompt, clock: clock, limit: readLimit)
          }
          switch delivery {
          case .read: return prompt
          case .promptEnded:
            guard id == nil, clock.uptime() < end else { throw .touchDelivery(.promptEnded(id: prompt.id)) }
          }
        }
      }
      if clock.uptime() >= end {
        if let id { throw .touchDelivery(.noSuchPrompt(id: id, user: user)) }
        if !othersPrompts.isEmpty { throw .touchDelivery(.othersPrompts(user: user, waiting: othersPrompts)) }
        throw .touchDelivery(.noPrompt(user: user))
      }
      clock.sleep(min(watch.descriptor >= 0 ? 0.25 : 0.02, end - clock.uptime()), wakingOn: watch.descriptor)
    }
  }
}

/// Why a touch or button press reached no prompt.
public enum TouchDeliveryError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No prompt waits for the user: like a phone with no prompt on screen, the touch does nothing.
  case noPrompt(user: UserName)
  /// The chosen prompt does not wait (for this user).
  case noSuchPrompt(id: String, user: UserName)
  /// Several prompts wait: the administrator must choose one with `--prompt`.
  case severalPrompts(user: UserName, waiting: [PromptAnnouncement])
  /// The prompt ended before it read the event.
  case promptEnded(id: String)
  /// Only prompts that another user asked for wait (such as their `su USER`): they need `--prompt`.
  case othersPrompts(user: UserName, waiting: [PromptAnnouncement])

  public var description: String {
    switch self {
    case .noPrompt(let user): "No prompt is waiting for \(user)."
    case .noSuchPrompt(let id, let user): "No prompt \(id) is waiting for \(user)."
    case .severalPrompts(let user, let waiting):
      "\(waiting.count) prompts are waiting for \(user); choose one with --prompt ID:\n"
        + waiting.map { "  " + $0.summary }.joined(separator: "\n")
    case .promptEnded(let id): "Prompt \(id) ended before it read the touch."
    case .othersPrompts(let user, let waiting):
      "No prompt that \(user) or root asked for is waiting for \(user); a prompt another user asked for takes a touch "
        + "only with --prompt ID:\n" + waiting.map { "  " + $0.summary }.joined(separator: "\n")
    }
  }
}

extension PromptAnnouncement {
  /// One line for people: id, who asks, for whom, through what, from where.
  package var summary: String {
    let tty = origin.tty.isEmpty ? "no tty" : origin.tty
    let remote = origin.remoteHost.isEmpty ? "" : ", from \(origin.remoteHost)"
    let what = origin.approval.isEmpty ? "run \(origin.service)" : origin.approval
    return "\(id)  \(origin.requesterName) (uid \(origin.requesterUID)) asks for \(user)'s \(modality.bodyPart) "
      + "to \(what) on \(tty)\(remote), pid \(origin.processID)"
  }
}
