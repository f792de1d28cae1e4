/// Why a biometric prompt stopped waiting before the finger decided (docs/RULES.md, "One finger request at a
/// time" and "Visibility holds for the whole wait"): the request falls back as a hidden one does.
enum PromptWithdrawal: Equatable {
  /// Another request asks for the same user's finger, or did a moment ago (`recent`); nil when its mark cannot be
  /// read.
  case concurrent(PromptAnnouncement?, recent: Bool)
  /// Another program outside the registry holds the reader (fprintd's Claim: AlreadyInUse).
  case readerInUse
  /// The request stopped being visible at the machine, for this reason (`EvaluationRequest.visibilityRecheck`).
  case notVisible(String)

  /// The line the user sees: who else asked, or why the request is no longer shown; `then` closes it ("Enter
  /// your passcode.") under the policy that falls back to the passcode.
  func message(_ modality: Modality, then: String?) -> String {
    let tail = then.map { " " + $0 } ?? ""
    switch self {
    case .concurrent(let other?, let recent):
      let verb = recent ? "asked for your \(modality.bodyPart) a moment ago" : "is asking for your \(modality.bodyPart)"
      return "Another program \(verb): \(other.requestDescription)." + tail
    case .concurrent(nil, _):
      return "Another program is asking for your \(modality.bodyPart)." + tail
    case .readerInUse:
      return "Another program is using the \(modality == .touchID ? "fingerprint reader" : "camera")." + tail
    case .notVisible:
      return "This request is no longer shown where you can see it" + (then.map { "; " + lowercasedFirst($0) } ?? ".")
    }
  }

  private func lowercasedFirst(_ text: String) -> String {
    guard let first = text.utf8.first, first >= 0x41, first <= 0x5A else { return text }
    return String(decoding: [first + 0x20] + Array(text.utf8.dropFirst()), as: UTF8.self)
  }
}

extension PromptAnnouncement {
  /// "sudo, pid 4242, pts/3, run `id` as root (sudo)": the program, its process, its terminal ("no terminal")
  /// and what it approves when known, as the tokens the announcement holds (printable, no line breaks).
  package var requestDescription: String {
    let tty = origin.tty.isEmpty ? "no terminal" : origin.tty
    let approval = origin.approval.isEmpty ? "" : ", " + origin.approval
    return "\(origin.service), pid \(origin.processID), \(tty)\(approval)"
  }
}

/// An evaluation's place in the prompt registry while its biometric prompt waits, whatever the sensor: announced
/// before the reader is claimed, withdrawn (leaving the per-user record of its end) after it is released.
///
/// A prompt waits only while it is its user's only one. Each prompt announces itself first and lists the others
/// after, so of two prompts announced at the same moment at least one sees the other; the one that sees marks
/// both, and the other sees the mark in its next wait slice. Neither gets the finger.
struct PromptLease {
  let registry: PromptRegistry
  let announcement: PromptAnnouncement
  let clock: AuthClock
  let log: AuthLog

  /// Announces a prompt for `request` in `registry`.
  static func announce(
    _ request: EvaluationRequest, modality: Modality, in registry: PromptRegistry, clock: AuthClock, log: AuthLog
  ) throws(LocalAuthError) -> PromptLease {
    let announcement = try withStateErrors { () throws(StateError) in
      try registry.announce(user: request.user, modality: modality, origin: request.origin, at: clock.now())
    }
    return PromptLease(registry: registry, announcement: announcement, clock: clock, log: log)
  }

  /// The conflict this prompt is in, or nil while it is its user's only request: a mark another prompt left, any
  /// other prompt of the user waiting now (both are marked, and the conflict is logged once), and with
  /// `includingRecent` a prompt of the user that ended in the last two seconds.
  func conflict(includingRecent: Bool) -> PromptWithdrawal? {
    if let mark = markSeen() { return mark }
    let others: [PromptAnnouncement]
    do {
      others = try registry.waiting(for: announcement.user).filter { $0.id != announcement.id }
    } catch {
      // The registry cannot be listed: whether another request waits is unknown, so the finger is not offered.
      log.log(.error, "The waiting prompts of user \(announcement.user) could not be listed: \(error).")
      return .concurrent(nil, recent: false)
    }
    if let other = others.first {
      markBoth(other)
      return .concurrent(other, recent: false)
    }
    guard includingRecent else { return nil }
    let waiter = (announcement.waiterPID, announcement.processStart)
    let recent = registry.recentlyEnded(
      for: announcement.user, at: clock.uptime(), excluding: waiter, requester: announcement.origin)
    guard let ended = recent else {
      return nil
    }
    if registry.mark(announcement.id, naming: ended) != false {
      log.log(
        .notice,
        "A request for the \(announcement.modality.bodyPart) of user \(announcement.user) (\(describe(announcement))) "
          + "follows one that ended a moment ago (\(describe(ended))): it does not get the \(announcement.modality.bodyPart).")
    }
    return .concurrent(ended, recent: true)
  }

  /// The mark another prompt left in this one's folder, or nil.
  func markSeen() -> PromptWithdrawal? {
    guard case .marked(let other) = registry.conflict(of: announcement.id) else { return nil }
    return .concurrent(other, recent: false)
  }

  /// Marks this prompt and `other`; logs once per conflict: the process that makes the newer prompt's mark.
  private func markBoth(_ other: PromptAnnouncement) {
    let ownFirst = (announcement.started, announcement.id) < (other.started, other.id)
    let madeOwn = registry.mark(announcement.id, naming: other)
    let madeOther = registry.mark(other.id, naming: announcement)
    guard (ownFirst ? madeOther : madeOwn) != false else { return }
    let (older, newer) = ownFirst ? (announcement, other) : (other, announcement)
    log.log(
      .notice,
      "Two requests ask for the \(announcement.modality.bodyPart) of user \(announcement.user) at once "
        + "(\(describe(older)); \(describe(newer))): neither gets it.")
  }

  private func describe(_ prompt: PromptAnnouncement) -> String { "prompt \(prompt.id): \(prompt.requestDescription)" }

  /// Records the prompt's end for the two-second window, then withdraws it.
  func end() {
    registry.noteEnded(announcement, at: clock.uptime())
    registry.withdraw(announcement.id)
  }
}

/// What a biometric prompt watches while it waits: its conflict mark (every slice) and whether the request is
/// still visible (`EvaluationRequest.visibilityRecheck`, at most every half second on the clock's uptime); and
/// both once more before a match is granted.
final class PromptWatch {
  let lease: PromptLease?
  let recheck: (() -> String?)?
  private let clock: AuthClock
  private var lastRecheck: Double

  /// The interval between two visibility rechecks in the wait, in seconds.
  static let recheckInterval: Double = 0.5

  init(lease: PromptLease?, recheck: (() -> String?)?, clock: AuthClock) {
    self.lease = lease
    self.recheck = recheck
    self.clock = clock
    lastRecheck = clock.uptime()
  }

  /// Why the prompt must stop waiting now, or nil: checked between wait slices.
  func inWait() -> PromptWithdrawal? {
    if let mark = lease?.markSeen() { return mark }
    guard let recheck, clock.uptime() - lastRecheck >= Self.recheckInterval else { return nil }
    lastRecheck = clock.uptime()
    return recheck().map { .notVisible($0) }
  }

  /// Why a match seen now must not be granted, or nil: the prompt is still alone and unmarked, and the request
  /// still visible.
  func beforeGrant() -> PromptWithdrawal? {
    if let conflict = lease?.conflict(includingRecent: false) { return conflict }
    return recheck?().map { .notVisible($0) }
  }
}
