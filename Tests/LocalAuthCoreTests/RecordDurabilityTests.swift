@testable import LocalAuthCore
import Testing

/// Which writes may skip the folder's flush: only those that record a success (RecordDurability.swift).
@Suite("State: write durability")
struct RecordDurabilityTests {
  /// A record with every field set: failures of both kinds, a pending delay, a reuse stamp, an unconfirmed enrollment change.
  static func earlier() -> UserRecord { StateCodecTests().fullRecord() }

  /// `time` moved by `seconds` (from 0 when nil).
  static func later(_ time: WallTime?, by seconds: Double) -> WallTime { WallTime(seconds: (time?.seconds ?? 0) + seconds) }

  @Test func aBiometricMatchOnlyRecordsASuccess() {
    let before = Self.earlier()
    var after = before
    after.biometricFailures = 0
    after.lastBiometricSuccess = Self.later(before.lastBiometricSuccess, by: 60)
    after.lastSuccess = Self.later(before.lastSuccess, by: 60)
    after.reuse = ReuseStamp(
      at: Self.later(before.lastSuccess, by: 60), bootID: "0b1d-boot", domainState: before.domainState!, requesterUID: 0, scope: "",
      purpose: .sessionUnlock)
    #expect(after.onlyRecordsSuccess(over: before))
  }

  @Test func aPasscodeSuccessOnlyRecordsASuccess() {
    let before = Self.earlier()
    var after = before
    after.passcodeFailures = 0
    after.lastWrongPasscodeHash = nil
    after.passcodeNextAllowed = nil
    after.biometricFailures = 0
    after.lastPasscodeSuccess = Self.later(before.lastSuccess, by: 60)
    after.lastPasscodeBootID = "another-boot"
    after.lastSuccess = Self.later(before.lastSuccess, by: 60)
    after.acknowledgedDomainState = before.domainState
    #expect(after.onlyRecordsSuccess(over: before))
  }

  /// Each change that makes the next authentication harder, or changes what is enrolled or set, is flushed in full.
  @Test(arguments: [
    "biometric failure", "passcode failure", "another wrong passcode", "longer delay", "a delay where there was none",
    "success time moved back", "success time removed", "reuse window ended", "acknowledged another state",
    "passcode changed", "passcode removed", "finger enrolled", "domain state changed", "feature added", "generation bumped",
  ])
  func aChangeThatIsNotASuccessIsFlushedInFull(_ change: String) {
    var before = Self.earlier()
    var after = before
    switch change {
    case "biometric failure": after.biometricFailures = before.biometricFailures + 1
    case "passcode failure": after.passcodeFailures = before.passcodeFailures + 1
    case "another wrong passcode": after.lastWrongPasscodeHash = "$y$j9T$salt$other"
    case "longer delay": after.passcodeNextAllowed = Self.later(before.passcodeNextAllowed, by: 60)
    case "a delay where there was none":
      before.passcodeNextAllowed = nil
      after.passcodeNextAllowed = Self.later(before.lastSuccess, by: 60)
    case "success time moved back": after.lastBiometricSuccess = Self.later(before.lastBiometricSuccess, by: -60)
    case "success time removed": after.lastSuccess = nil
    case "reuse window ended": after.reuse = nil
    case "acknowledged another state": after.acknowledgedDomainState = "cc33"
    case "passcode changed": after.passcodeHash = "$y$j9T$salt$new"
    case "passcode removed": after.passcodeHash = nil
    case "finger enrolled":
      after.templates.append(BiometricTemplate(name: "left-index", modality: .touchID, features: [Float](repeating: 0.2, count: 128), enrolledAt: WallTime(seconds: 60)))
    case "domain state changed": after.domainState = "dd44"
    case "feature added": after.features.insert("login")
    case "generation bumped": after.enrollmentGeneration = before.enrollmentGeneration + 1
    default: Issue.record("unknown change \(change)")
    }
    #expect(!after.onlyRecordsSuccess(over: before), "\(change)")
  }
}
