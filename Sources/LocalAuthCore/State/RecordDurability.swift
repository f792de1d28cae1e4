/// Which record writes must reach the disk before the answer, and which need not wait for it.
///
/// A write whose loss to a power failure could make the next authentication more lenient must be on the disk
/// before the module answers: a failure charged, a lockout, a passcode delay, an enrollment, passcode or feature
/// change, the end of a reuse window. The store writes those as a whole record: a temporary file flushed to disk,
/// renamed over the record, the folder flushed. A write that only records a success (failures reset, success times
/// and reuse stamps moved forward, the enrollment change confirmed, nothing else changed) can only make the next
/// authentication stricter if it is lost: the earlier state asks at least as much of the user. The store writes
/// those as a success note beside the record, without waiting for the disk (SuccessNote.swift).
extension UserRecord {
  /// True when replacing `earlier` with this record only records a success (see the type's discussion).
  package func onlyRecordsSuccess(over earlier: UserRecord) -> Bool {
    guard biometricFailures <= earlier.biometricFailures, passcodeFailures <= earlier.passcodeFailures else { return false }
    guard lastWrongPasscodeHash == nil || lastWrongPasscodeHash == earlier.lastWrongPasscodeHash else { return false }
    if let next = passcodeNextAllowed {
      guard let before = earlier.passcodeNextAllowed, next <= before else { return false }
    }
    func kept(_ now: WallTime?, _ before: WallTime?) -> Bool {
      guard let before else { return true }
      guard let now else { return false }
      return now >= before
    }
    guard kept(lastPasscodeSuccess, earlier.lastPasscodeSuccess), kept(lastBiometricSuccess, earlier.lastBiometricSuccess),
      kept(lastSuccess, earlier.lastSuccess)
    else { return false }
    if earlier.lastPasscodeBootID != nil, lastPasscodeBootID == nil { return false }
    // A stamp dropped (not replaced by a newer one of its purpose) ends a window.
    for stamp in earlier.reuseStamps where reuseStamp(for: stamp.purpose) == nil { return false }
    if acknowledgedDomainState != earlier.acknowledgedDomainState, acknowledgedDomainState != domainState { return false }
    // Everything else must be exactly as before.
    return earlier.withSuccessFields(of: self) == self
  }

  /// This record with the fields a success may change taken from `later`: failure counts, the last wrong
  /// passcode, the passcode's delay, the success times and boot, the reuse stamps and the acknowledged enrollment.
  /// What a success note carries (SuccessNote.swift) and all that `onlyRecordsSuccess` lets differ.
  package func withSuccessFields(of later: UserRecord) -> UserRecord {
    var merged = self
    merged.biometricFailures = later.biometricFailures
    merged.passcodeFailures = later.passcodeFailures
    merged.lastWrongPasscodeHash = later.lastWrongPasscodeHash
    merged.passcodeNextAllowed = later.passcodeNextAllowed
    merged.lastPasscodeSuccess = later.lastPasscodeSuccess
    merged.lastBiometricSuccess = later.lastBiometricSuccess
    merged.lastSuccess = later.lastSuccess
    merged.lastPasscodeBootID = later.lastPasscodeBootID
    merged.reuseStamps = later.reuseStamps
    merged.acknowledgedDomainState = later.acknowledgedDomainState
    return merged
  }
}
