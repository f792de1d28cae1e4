/// Which record writes must reach the disk before the answer, and which may trail it.
///
/// Every write is a temporary file flushed to disk and renamed over the record, so that no crash ever leaves a
/// torn or empty record. Flushing the folder as well makes the rename itself survive a power failure; it is
/// skipped when the new record only records a success. Such a write, lost with the power, leaves the earlier
/// record in place, and the earlier record asks at least as much of the user: more failures counted, older
/// success times (so an earlier end to the reuse window and to the biometric time limits), the enrollment
/// change not yet confirmed. Failures, lockouts, delays, enrollment, passcode and feature changes, and the end
/// of a reuse window are always flushed in full before the module answers.
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
    var expected = earlier
    expected.biometricFailures = biometricFailures
    expected.passcodeFailures = passcodeFailures
    expected.lastWrongPasscodeHash = lastWrongPasscodeHash
    expected.passcodeNextAllowed = passcodeNextAllowed
    expected.lastPasscodeSuccess = lastPasscodeSuccess
    expected.lastBiometricSuccess = lastBiometricSuccess
    expected.lastSuccess = lastSuccess
    expected.lastPasscodeBootID = lastPasscodeBootID
    expected.reuseStamps = reuseStamps
    expected.acknowledgedDomainState = acknowledgedDomainState
    return expected == self
  }
}
