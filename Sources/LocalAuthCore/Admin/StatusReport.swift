/// A snapshot of one user's state, as `localauthctl status` shows it: what is enrolled, the counters,
/// the lockout and delays, and what the rules require now — so nobody has to parse the state file to tell
/// "locked" from "wrong passcode".
public struct StatusReport: Equatable, Sendable {
  /// The user.
  package var user: String
  /// When the report was taken.
  package var now: WallTime
  /// True when the user has a state file.
  package var hasRecord: Bool
  /// The sensor's modality (LABiometryType), or nil when no sensor is configured.
  package var biometryType: Modality?
  /// Every enrolled finger or appearance, in enrolment order.
  package var enrolled: [EnrolledItem]
  /// The opaque domain state, or nil when nothing is enrolled.
  package var domainState: String?
  /// Bumped on every enrolment change.
  package var enrollmentGeneration: Int
  /// Consecutive failed biometric matches.
  package var biometricFailures: Int
  /// The failures that lock biometry.
  package var lockoutThreshold: Int
  /// True when biometry is locked until the passcode is entered.
  package var isLockedOut: Bool
  /// True when a passcode is set (with `passcode=account`: when the login password can be the passcode).
  package var passcodeSet: Bool
  /// Which secret is the passcode: the module's own, or the login password (`passcode=`).
  package var passcodeSource: PasscodeSource
  /// With `passcode=account`, why the login password cannot be the passcode now; nil when it can.
  package var accountRefusal: AccountRefusal?
  /// Consecutive failed passcode checks.
  package var passcodeFailures: Int
  /// The earliest time of the next passcode attempt, when it lies in the future.
  package var passcodeNextAllowed: WallTime?
  /// The last successful authentication of any kind.
  package var lastSuccess: WallTime?
  /// The last successful biometric match.
  package var lastBiometricSuccess: WallTime?
  /// The last successful passcode check.
  package var lastPasscodeSuccess: WallTime?
  /// Why the passcode is required instead of biometry now, or nil when it is not.
  package var passcodeRequirement: PasscodeRequirement?
  /// Whether biometry can be offered now.
  package var biometry: BiometryStatus
  /// canEvaluatePolicy for deviceOwnerAuthentication: nil when it can be evaluated.
  package var deviceOwnerError: AuthErrorCode?
  /// canEvaluatePolicy for deviceOwnerAuthenticationWithBiometrics: nil when it can be evaluated.
  package var biometricsError: AuthErrorCode?
  /// The features the user protected, sorted.
  package var features: [String]
  /// The last few failed attempts and where they came from, oldest first.
  package var recentFailures: [FailureEntry]

  /// One enrolled item, without its template.
  public struct EnrolledItem: Equatable, Sendable {
    /// The name the administrator gave it.
    package var name: String
    /// Touch ID or Face ID.
    package var modality: Modality
    /// When it was enrolled.
    package var enrolledAt: WallTime
  }

  /// True when the passcode is required now (a rule or a lockout), and a passcode is set.
  package var passcodeRequired: Bool { passcodeRequirement != nil }

  /// The names of the enrolled items.
  package var enrolledNames: [String] { enrolled.map { $0.name } }

  /// Reads `user`'s record and reports on it with the evaluator's own rules; state errors are thrown as they are.
  package static func load(
    _ user: UserName, dependencies: Dependencies, settings: EvaluationSettings
  ) throws(LocalAuthError) -> StatusReport {
    let record = try dependencies.store.load(user)
    let evaluator = PolicyEvaluator(dependencies: dependencies, settings: settings)
    let clock = dependencies.clock
    return StatusReport(
      user: user, record: record, sensor: dependencies.sensor.modality, now: clock.now(), bootID: clock.bootID(),
      settings: settings, deviceOwnerError: try evaluator.canEvaluate(.deviceOwnerAuthentication, for: user),
      biometricsError: try evaluator.canEvaluate(.deviceOwnerAuthenticationWithBiometrics, for: user),
      accountRefusal: settings.passcodeSource == .account ? evaluator.accountRefusal(for: user) : nil)
  }

  /// Builds a report from a record (nil for a user without a state file).
  public init(
    user: UserName, record: UserRecord?, sensor: Modality?, now: WallTime, bootID: String,
    settings: EvaluationSettings, deviceOwnerError: AuthErrorCode?, biometricsError: AuthErrorCode?,
    accountRefusal: AccountRefusal? = nil
  ) {
    var r = record ?? UserRecord()
    // Shown as the evaluator sees it: times beyond what any rule sets (the clock jumped) capped (FutureTimes).
    _ = FutureTimes.cap(&r, now: now, longestDelay: FutureTimes.longestDelay(settings.delaySchedule))
    self.user = user.value
    self.now = now
    self.hasRecord = record != nil
    self.biometryType = sensor
    self.enrolled = r.templates.map { EnrolledItem(name: $0.name, modality: $0.modality, enrolledAt: $0.enrolledAt) }
    self.domainState = r.domainState
    self.enrollmentGeneration = r.enrollmentGeneration
    self.biometricFailures = r.biometricFailures
    self.lockoutThreshold = settings.lockoutThreshold
    self.isLockedOut = r.isBiometryLockedOut(threshold: settings.lockoutThreshold)
    self.passcodeSource = settings.passcodeSource
    self.accountRefusal = settings.passcodeSource == .account ? accountRefusal : nil
    self.passcodeSet = settings.passcodeSource == .account ? accountRefusal == nil : r.passcodeHash != nil
    self.passcodeFailures = r.passcodeFailures
    self.passcodeNextAllowed = r.passcodeNextAllowed.flatMap { $0 > now ? $0 : nil }
    self.lastSuccess = r.lastSuccess
    self.lastBiometricSuccess = r.lastBiometricSuccess
    self.lastPasscodeSuccess = r.lastPasscodeSuccess
    let biometry = BiometryStatus.of(record: r, sensor: sensor, remote: false, now: now, bootID: bootID, settings: settings)
    self.biometry = biometry
    if !self.passcodeSet {
      self.passcodeRequirement = nil
    } else if self.isLockedOut {
      self.passcodeRequirement = .lockout
    } else {
      self.passcodeRequirement = BiometryStatus.passcodeRequirement(record: r, now: now, bootID: bootID, settings: settings)
    }
    self.deviceOwnerError = deviceOwnerError
    self.biometricsError = biometricsError
    self.features = r.features.sorted()
    self.recentFailures = r.recentFailures
  }
}
