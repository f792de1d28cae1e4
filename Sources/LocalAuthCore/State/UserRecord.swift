/// A successful biometric match that the reuse window may honour.
public struct ReuseStamp: Equatable, Sendable {
  /// When the match happened.
  package var at: WallTime
  /// The boot it happened in; a reboot ends the window.
  package var bootID: String
  /// The domain state at the time; an enrollment change ends the window.
  package var domainState: String
  /// The real uid of the process that asked for the match; only the same requester may reuse it.
  package var requesterUID: UInt32
  /// The terminal or login session it was asked from (`RequestOrigin.reuseScope`); only the same may reuse it.
  package var scope: String
  /// What the match was made for; only a request of the same kind may reuse it (`ReusePurpose`).
  package var purpose: ReusePurpose

  /// Stamps a match.
  public init(
    at: WallTime, bootID: String, domainState: String, requesterUID: UInt32, scope: String, purpose: ReusePurpose
  ) {
    self.at = at
    self.bootID = bootID
    self.domainState = domainState
    self.requesterUID = requesterUID
    self.scope = scope
    self.purpose = purpose
  }

  /// The login session part of `scope` (`RequestOrigin.reuseScope`); empty when it had none.
  package var loginSession: String {
    let first = scope.split(separator: ",", maxSplits: 1).first ?? ""
    guard first.hasPrefix("session="), first != "session=-" else { return "" }
    return String(first.dropFirst("session=".count))
  }

  /// How many stamps a record keeps, one per purpose, the oldest dropped beyond.
  package static let kept = 4
}

/// A failed attempt and where it came from, so that an administrator can see who caused a delay or a lockout.
public struct FailureEntry: Equatable, Sendable {
  /// What failed.
  public enum Kind: String, Sendable {
    /// A wrong finger or face.
    case biometric
    /// A wrong passcode.
    case passcode
  }

  /// When it failed.
  package var at: WallTime
  /// What failed.
  package var kind: Kind
  /// The requesting process's real uid.
  package var requesterUID: UInt32
  /// The PAM service or program.
  package var service: String
  /// The terminal; empty when none.
  package var tty: String
  /// The remote host; empty when none.
  package var remoteHost: String

  /// Records a failure asked by `origin`.
  public init(at: WallTime, kind: Kind, origin: RequestOrigin) {
    self.at = at
    self.kind = kind
    self.requesterUID = origin.requesterUID
    self.service = origin.service
    self.tty = origin.tty
    self.remoteHost = origin.remoteHost
  }

  /// How many failures a record keeps, newest last.
  package static let kept = 5
}

/// Everything the module knows about one user: the single truth on disk.
public struct UserRecord: Equatable, Sendable {
  /// The yescrypt hash of the passcode, or nil when none is set.
  package var passcodeHash: String?
  /// Consecutive failed passcode checks.
  package var passcodeFailures = 0
  /// The hash of the last wrong passcode, so that repeating it counts once.
  package var lastWrongPasscodeHash: String?
  /// The earliest time the next passcode check is allowed.
  package var passcodeNextAllowed: WallTime?
  /// Consecutive wrong application passwords (any item's; ApplicationPasswordCheck).
  package var applicationPasswordFailures = 0
  /// The earliest time the next application password is checked.
  package var applicationPasswordNextAllowed: WallTime?
  /// The last successful passcode check.
  package var lastPasscodeSuccess: WallTime?
  /// The boot id of the last successful passcode check.
  package var lastPasscodeBootID: String?
  /// Consecutive failed biometric matches, across prompts and processes.
  package var biometricFailures = 0
  /// The last successful biometric match.
  package var lastBiometricSuccess: WallTime?
  /// The last successful authentication of any kind.
  package var lastSuccess: WallTime?
  /// Bumped on every enrollment change.
  package var enrollmentGeneration = 0
  /// An opaque value that changes on every enrollment change; nil when nothing is enrolled.
  package var domainState: String?
  /// The domain state the passcode last confirmed; differing means an enrollment change since.
  package var acknowledgedDomainState: String?
  /// The newest biometric match of each purpose, for the reuse window, oldest first (at most `ReuseStamp.kept`).
  package var reuseStamps: [ReuseStamp] = []
  /// Features the user protected (the facade of seeds 000/002).
  package var features: Set<String> = []
  /// Enrolled fingers or appearances.
  package var templates: [BiometricTemplate] = []
  /// The last few failed attempts, oldest first (at most `FailureEntry.kept`).
  package var recentFailures: [FailureEntry] = []

  /// Creates an empty record.
  public init() {}

  /// Adds a failure, dropping the oldest beyond `FailureEntry.kept`.
  package mutating func noteFailure(_ failure: FailureEntry) {
    recentFailures.append(failure)
    if recentFailures.count > FailureEntry.kept { recentFailures.removeFirst(recentFailures.count - FailureEntry.kept) }
  }

  /// Removes the newest failure equal to `failure` (an attempt charged as a failure that turned out not to be
  /// one); nothing when a reset or newer failures already dropped it.
  package mutating func withdrawFailure(_ failure: FailureEntry) {
    if let index = recentFailures.lastIndex(of: failure) { recentFailures.remove(at: index) }
  }

  /// The newest reuse stamp; setting nil ends every window, setting a stamp records it (`noteReuse`).
  package var reuse: ReuseStamp? {
    get { reuseStamps.last }
    set {
      guard let newValue else { return reuseStamps.removeAll() }
      noteReuse(newValue)
    }
  }

  /// Records `stamp` as the newest of its purpose (as the state file writes it), dropping the oldest stamps
  /// beyond `ReuseStamp.kept`.
  package mutating func noteReuse(_ stamp: ReuseStamp) {
    let token = stamp.purpose.token
    reuseStamps.removeAll { $0.purpose.token == token }
    reuseStamps.append(stamp)
    if reuseStamps.count > ReuseStamp.kept { reuseStamps.removeFirst(reuseStamps.count - ReuseStamp.kept) }
  }

  /// The stamp of `purpose`, if any.
  package func reuseStamp(for purpose: ReusePurpose) -> ReuseStamp? {
    reuseStamps.last { $0.purpose == purpose }
  }

  /// True when the biometric failures reached the lockout threshold.
  package func isBiometryLockedOut(threshold: Int) -> Bool { biometricFailures >= threshold }
}

/// The rule for names of enrolled items and features: 1–64 of A–Z a–z 0–9 . _ -
package func isValidItemName(_ name: String) -> Bool {
  let bytes = Array(name.utf8)
  guard (1...64).contains(bytes.count), bytes.first != UInt8(ascii: ".") else { return false }
  return bytes.allSatisfy { b in
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
      || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
  }
}
