@testable import LocalAuthCore
import Testing

/// Which writes may skip the folder's flush: only those that record a success (RecordDurability.swift).
@Suite("State: write durability")
struct RecordDurabilityTests {
  /// A record with a passcode, a finger, two failures of each kind, a pending delay and a reuse stamp.
  static func earlier() -> UserRecord {
    var record = UserRecord()
    record.passcodeHash = "$y$j9T$salt$hash"
    record.passcodeFailures = 2
    record.lastWrongPasscodeHash = "$y$j9T$salt$wrong"
    record.passcodeNextAllowed = WallTime(seconds: 1_000)
    record.lastPasscodeSuccess = WallTime(seconds: 100)
    record.lastPasscodeBootID = "boot-a"
    record.biometricFailures = 2
    record.lastBiometricSuccess = WallTime(seconds: 200)
    record.lastSuccess = WallTime(seconds: 200)
    record.enrollmentGeneration = 3
    record.domainState = "state-b"
    record.acknowledgedDomainState = "state-a"
    record.reuse = ReuseStamp(at: WallTime(seconds: 200), bootID: "boot-a", domainState: "state-b")
    record.features = ["sudo"]
    record.templates = [BiometricTemplate(name: "right-index", modality: .touchID, features: [Float](repeating: 0.1, count: 128), enrolledAt: WallTime(seconds: 50))]
    return record
  }

  @Test func aBiometricMatchOnlyRecordsASuccess() {
    let before = Self.earlier()
    var after = before
    after.biometricFailures = 0
    after.lastBiometricSuccess = WallTime(seconds: 900)
    after.lastSuccess = WallTime(seconds: 900)
    after.reuse = ReuseStamp(at: WallTime(seconds: 900), bootID: "boot-a", domainState: "state-b")
    #expect(after.onlyRecordsSuccess(over: before))
  }

  @Test func aPasscodeSuccessOnlyRecordsASuccess() {
    let before = Self.earlier()
    var after = before
    after.passcodeFailures = 0
    after.lastWrongPasscodeHash = nil
    after.passcodeNextAllowed = nil
    after.biometricFailures = 0
    after.lastPasscodeSuccess = WallTime(seconds: 1_100)
    after.lastPasscodeBootID = "boot-c"
    after.lastSuccess = WallTime(seconds: 1_100)
    after.acknowledgedDomainState = "state-b"
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
    case "biometric failure": after.biometricFailures = 3
    case "passcode failure": after.passcodeFailures = 3
    case "another wrong passcode": after.lastWrongPasscodeHash = "$y$j9T$salt$other"
    case "longer delay": after.passcodeNextAllowed = WallTime(seconds: 2_000)
    case "a delay where there was none":
      before.passcodeNextAllowed = nil
      after.passcodeNextAllowed = WallTime(seconds: 2_000)
    case "success time moved back": after.lastBiometricSuccess = WallTime(seconds: 150)
    case "success time removed": after.lastSuccess = nil
    case "reuse window ended": after.reuse = nil
    case "acknowledged another state": after.acknowledgedDomainState = "state-z"
    case "passcode changed": after.passcodeHash = "$y$j9T$salt$new"
    case "passcode removed": after.passcodeHash = nil
    case "finger enrolled":
      after.templates.append(BiometricTemplate(name: "left-index", modality: .touchID, features: [Float](repeating: 0.2, count: 128), enrolledAt: WallTime(seconds: 60)))
    case "domain state changed": after.domainState = "state-c"
    case "feature added": after.features.insert("login")
    case "generation bumped": after.enrollmentGeneration = 4
    default: Issue.record("unknown change \(change)")
    }
    #expect(!after.onlyRecordsSuccess(over: before), "\(change)")
  }
}
