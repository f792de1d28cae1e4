/// Whether biometry can be offered to a user now, and if not, why.
package enum BiometryStatus: Equatable, Sendable {
  /// Biometry can be offered with this modality.
  case usable(Modality)
  /// Biometry cannot be offered.
  case unusable(AuthErrorCode, FailureDetail)

  /// Decides biometry's status from the sensor, the record and the rules (docs/RULES.md, rules 1, 3 and 6).
  /// `readerItems` are the prints a reader keeps itself (fprintd); nil when the record holds the templates.
  /// `hidden` is a request the person at the machine cannot see (RequestVisibility).
  package static func of(
    record: UserRecord, sensor: Modality?, remote: Bool, hidden: Bool = false, now: WallTime, bootID: String,
    settings: EvaluationSettings, readerItems: [String]? = nil
  ) -> BiometryStatus {
    guard let modality = sensor else { return .unusable(.biometryNotAvailable, .none) }
    if remote { return .unusable(.biometryNotAvailable, .remoteSession) }
    if hidden { return .unusable(.biometryNotAvailable, .requestNotVisible) }
    let enrolled = readerItems.map { !$0.isEmpty } ?? record.templates.contains(where: { $0.modality == modality })
    guard enrolled else { return .unusable(.biometryNotEnrolled, .none) }
    if record.isBiometryLockedOut(threshold: settings.lockoutThreshold) {
      return .unusable(.biometryLockout, .biometryLockedOut(failures: record.biometricFailures))
    }
    if record.passcodeHash != nil || settings.passcodeSource == .account,
      let requirement = passcodeRequirement(record: record, now: now, bootID: bootID, settings: settings)
    {
      return .unusable(.biometryLockout, .passcodeRequired(requirement))
    }
    return .usable(modality)
  }

  /// Why the passcode is required instead of biometry now, or nil when biometry may be used (rule 6).
  package static func passcodeRequirement(
    record: UserRecord, now: WallTime, bootID: String, settings: EvaluationSettings
  ) -> PasscodeRequirement? {
    if settings.passcodeAfterReboot && record.lastPasscodeBootID != bootID { return .reboot }
    if settings.idleLimit > 0 {
      guard let last = record.lastSuccess, now.since(last) <= settings.idleLimit else { return .idle }
    }
    if settings.passcodeMaxAge > 0 && settings.biometryMaxAge > 0 {
      let passcodeAge = record.lastPasscodeSuccess.map { now.since($0) } ?? .infinity
      let biometryAge = record.lastBiometricSuccess.map { now.since($0) } ?? .infinity
      if passcodeAge > settings.passcodeMaxAge && biometryAge > settings.biometryMaxAge { return .passcodeAge }
    }
    if settings.passcodeAfterEnrollmentChange && record.domainState != record.acknowledgedDomainState {
      return .enrollmentChange
    }
    return nil
  }
}
