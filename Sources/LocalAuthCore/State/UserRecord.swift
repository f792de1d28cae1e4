/// A successful biometric match that the reuse window may honour.
public struct ReuseStamp: Equatable, Sendable {
  /// When the match happened.
  public var at: WallTime
  /// The boot it happened in; a reboot ends the window.
  public var bootID: String
  /// The domain state at the time; an enrollment change ends the window.
  public var domainState: String
}

/// Everything the module knows about one user: the single truth on disk.
public struct UserRecord: Equatable, Sendable {
  /// The yescrypt hash of the passcode, or nil when none is set.
  public var passcodeHash: String?
  /// Consecutive failed passcode checks.
  public var passcodeFailures = 0
  /// The hash of the last wrong passcode, so that repeating it counts once.
  public var lastWrongPasscodeHash: String?
  /// The earliest time the next passcode check is allowed.
  public var passcodeNextAllowed: WallTime?
  /// The last successful passcode check.
  public var lastPasscodeSuccess: WallTime?
  /// The boot id of the last successful passcode check.
  public var lastPasscodeBootID: String?
  /// Consecutive failed biometric matches, across prompts and processes.
  public var biometricFailures = 0
  /// The last successful biometric match.
  public var lastBiometricSuccess: WallTime?
  /// The last successful authentication of any kind.
  public var lastSuccess: WallTime?
  /// Bumped on every enrollment change.
  public var enrollmentGeneration = 0
  /// An opaque value that changes on every enrollment change; nil when nothing is enrolled.
  public var domainState: String?
  /// The domain state the passcode last confirmed; differing means an enrollment change since.
  public var acknowledgedDomainState: String?
  /// The last biometric match, for the reuse window.
  public var reuse: ReuseStamp?
  /// Features the user protected (the facade of seeds 000/002).
  public var features: Set<String> = []
  /// Enrolled fingers or appearances.
  public var templates: [BiometricTemplate] = []

  /// Creates an empty record.
  public init() {}

  /// True when the biometric failures reached the lockout threshold.
  public func isBiometryLockedOut(threshold: Int) -> Bool { biometricFailures >= threshold }
}

/// The rule for names of enrolled items and features: 1–64 of A–Z a–z 0–9 . _ -
public func isValidItemName(_ name: String) -> Bool {
  let bytes = Array(name.utf8)
  guard (1...64).contains(bytes.count), bytes.first != UInt8(ascii: ".") else { return false }
  return bytes.allSatisfy { b in
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
      || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
  }
}
