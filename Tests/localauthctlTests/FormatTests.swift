import Foundation
import LocalAuthCore
import LocalAuthTesting
import Testing

@testable import localauthctl

@Suite struct JSONWriterTests {
  @Test func escapesStringsPerRFC8259() {
    #expect(JSONValue.quoted("plain") == "\"plain\"")
    #expect(JSONValue.quoted("a\"b\\c") == "\"a\\\"b\\\\c\"")
    #expect(JSONValue.quoted("line\nbreak\ttab\r") == "\"line\\nbreak\\ttab\\r\"")
    #expect(JSONValue.quoted("\u{01}\u{1F}\u{7F}") == "\"\\u0001\\u001f\\u007f\"")
    #expect(JSONValue.quoted("é ✓") == "\"é ✓\"")
  }

  @Test func rendersNestedValuesThatFoundationCanRead() throws {
    let value = JSONValue.object([
      ("s", .string("x\"y")), ("n", .null), ("b", .bool(true)), ("i", .int(-8)), ("d", .number(1.5)),
      ("whole", .number(1_800_000_000)), ("inf", .number(.infinity)), ("a", .array([.int(1), .string(nil)])),
      ("empty", .array([])), ("o", .object([])),
    ])
    #expect(
      value.rendered(indent: 0)
        == #"{"s":"x\"y","n":null,"b":true,"i":-8,"d":1.5,"whole":1800000000,"inf":null,"a":[1,null],"empty":[],"o":{}}"#)
    let decoded = try #require(try JSONSerialization.jsonObject(with: Data(value.rendered().utf8)) as? [String: Any])
    #expect(decoded["s"] as? String == "x\"y")
    #expect(decoded["i"] as? Int == -8)
    #expect(decoded["whole"] as? Int == 1_800_000_000)
  }
}

@Suite struct StatusReportTests {
  let alice = try! UserName("alice")

  func report(_ record: UserRecord?, clock: ManualClock, settings: EvaluationSettings = EvaluationSettings()) -> StatusReport {
    StatusReport(
      user: alice, record: record, sensor: .touchID, now: clock.now(), bootID: clock.bootID(), settings: settings,
      deviceOwnerError: nil, biometricsError: nil)
  }

  func enrolledRecord(clock: ManualClock) -> UserRecord {
    var record = UserRecord()
    record.passcodeHash = "$y$fake"
    record.templates = [
      BiometricTemplate(
        name: "right-index", modality: .touchID, features: [Float](repeating: 0, count: 128), enrolledAt: clock.now())
    ]
    record.domainState = "d1"
    record.acknowledgedDomainState = "d1"
    record.lastPasscodeBootID = clock.bootID()
    record.lastSuccess = clock.now()
    record.lastPasscodeSuccess = clock.now()
    return record
  }

  @Test func noRecordReportsEmptyState() {
    let r = report(nil, clock: ManualClock())
    #expect(!r.hasRecord)
    #expect(r.enrolled.isEmpty)
    #expect(!r.passcodeSet)
    #expect(!r.passcodeRequired)
    #expect(r.biometry == .unusable(.biometryNotEnrolled, .none))
  }

  @Test func rulesDecideWhetherThePasscodeIsRequired() {
    let clock = ManualClock()
    var record = enrolledRecord(clock: clock)
    var r = report(record, clock: clock)
    #expect(r.passcodeRequirement == nil)
    #expect(r.biometry == .usable(.touchID))
    #expect(r.enrolledNames == ["right-index"])

    clock.reboot(to: "boot-2")
    r = report(record, clock: clock)
    #expect(r.passcodeRequirement == .reboot)
    #expect(r.biometry == .unusable(.biometryLockout, .passcodeRequired(.reboot)))

    record.lastPasscodeBootID = "boot-2"
    record.domainState = "d2"
    #expect(report(record, clock: clock).passcodeRequirement == .enrollmentChange)

    record.biometricFailures = 5
    r = report(record, clock: clock)
    #expect(r.isLockedOut)
    #expect(r.passcodeRequirement == .lockout)

    clock.advance(by: 49 * 3600)
    record.biometricFailures = 0
    record.domainState = "d1"
    #expect(report(record, clock: clock).passcodeRequirement == .idle)
  }

  @Test func onlyAFutureDelayIsReported() {
    let clock = ManualClock()
    var record = enrolledRecord(clock: clock)
    record.passcodeFailures = 5
    record.passcodeNextAllowed = clock.now().adding(60)
    #expect(report(record, clock: clock).passcodeNextAllowed == clock.now().adding(60))
    clock.advance(by: 61)
    let r = report(record, clock: clock)
    #expect(r.passcodeNextAllowed == nil)
    #expect(r.passcodeFailures == 5)
  }

  @Test func loadUsesTheEvaluatorsCanEvaluate() throws {
    let clock = ManualClock()
    let store = InMemoryStateStore()
    let deps = Dependencies(
      clock: clock, store: store, sensor: ScriptedSensor(clock: clock), prompter: ScriptedPrompter(), log: MemoryLog())
    var r = try StatusReport.load(alice, dependencies: deps, settings: EvaluationSettings())
    #expect(r.deviceOwnerError == .passcodeNotSet)
    #expect(r.biometricsError == .biometryNotEnrolled)
    try store.update(alice) { $0 = enrolledRecord(clock: clock) }
    r = try StatusReport.load(alice, dependencies: deps, settings: EvaluationSettings())
    #expect(r.deviceOwnerError == nil)
    #expect(r.biometricsError == nil)
    #expect(r.hasRecord)
  }

  @Test func textAndJSONShowTheFields() throws {
    let clock = ManualClock()
    var record = enrolledRecord(clock: clock)
    record.features = ["sudo"]
    record.noteFailure(
      FailureEntry(
        at: clock.now().adding(-60), kind: .passcode,
        origin: RequestOrigin(service: "su", tty: "/dev/pts/7", requesterUID: 4_000_123, requesterName: "bob")))
    let r = report(record, clock: clock)
    let text = StatusFormat.text(r, waitingPrompts: 2)
    #expect(text.contains("Enrolled:                   1 (right-index)"))
    #expect(text.contains("Passcode required now:      no"))
    #expect(text.contains("Features:                   sudo"))
    #expect(text.contains("Prompts waiting:            2"))
    #expect(
      text.contains(
        "Recent failures:            2027-01-15T07:59:00Z (1 minute ago): passcode failed, asked by uid 4000123 through su on /dev/pts/7"),
      "\(text)")
    #expect(text.contains("Last success:               2027-01-15T08:00:00Z (now)"))
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(StatusFormat.json(r, waitingPrompts: 2).rendered().utf8)) as? [String: Any])
    #expect(json["lastSuccess"] as? Int == 1_800_000_000)
    #expect(json["features"] as? [String] == ["sudo"])
    #expect(json["passcodeRequiredReason"] is NSNull)
    #expect(json["waitingPrompts"] as? Int == 2)
    let failures = try #require(json["recentFailures"] as? [[String: Any]])
    #expect(failures.count == 1)
    #expect(failures.first?["service"] as? String == "su")
    #expect(failures.first?["requesterUid"] as? Int == 4_000_123)
    #expect(failures.first?["tty"] as? String == "/dev/pts/7")
  }
}

@Suite struct OptionsReportTests {
  /// Parses lines as a configuration file's text.
  func reparse(_ lines: [String]) throws -> Options {
    let text = lines.joined(separator: "\n") + "\n"
    return try OptionParser.parse(arguments: ["conf=/x.conf"]) { _ in text }.options
  }

  @Test func defaultsRoundTrip() throws {
    let options = Options()
    #expect(try reparse(options.settingLines) == options)
  }

  @Test func changedOptionsRoundTrip() throws {
    let parsed = try OptionParser.parse(
      arguments: [
        "policy=biometrics", "reason=unlock the vault", "fallback_title=", "reuse_duration=12.5", "timeout=7",
        "feature=sudo", "state_dir=/srv/la", "sensor=faceid", "event_expiry=9", "lockout_threshold=3",
        "passcode_after_reboot=no", "passcode_after_enrollment_change=no", "idle_limit=0", "passcode_max_age=100",
        "biometry_max_age=50", "hash_cost=3", "debug",
      ], readFile: { _ in nil }
    ).options
    let lines = parsed.settingLines
    #expect(lines.contains("reuse_duration=12.5"))
    #expect(lines.contains("sensor=faceid"))
    #expect(lines.contains("fallback_title="))
    #expect(try reparse(lines) == parsed)
  }

  @Test("the runtime folder: /run/localauth by default, the state folder when state_dir= moves it, else runtime_dir=")
  func runtimeFolder() throws {
    func parse(_ arguments: [String]) throws -> Options {
      try OptionParser.parse(arguments: arguments, readFile: { _ in nil }).options
    }
    let defaults = try parse([])
    #expect(defaults.runtimeRoot == "/run/localauth")
    #expect(defaults.settingLines.contains("# runtime_dir is /run/localauth, derived from state_dir"))
    let moved = try parse(["state_dir=/srv/la"])
    #expect(moved.runtimeRoot == "/srv/la")
    #expect(moved.settingLines.contains("# runtime_dir is /srv/la, derived from state_dir"))
    let explicit = try parse(["state_dir=/srv/la", "runtime_dir=/run/la-test"])
    #expect(explicit.runtimeRoot == "/run/la-test")
    #expect(explicit.settingLines.contains("runtime_dir=/run/la-test"))
    #expect(try reparse(explicit.settingLines) == explicit)
    #expect(try reparse(moved.settingLines) == moved)
    #expect(throws: ConfigError.self) { try parse(["runtime_dir=run/relative"]) }
  }
}

@Suite struct TimeFormatTests {
  @Test func formatsUTCToTheSecond() {
    #expect(formatTime(WallTime(seconds: 1_800_000_000.9)) == "2027-01-15T08:00:00Z")
  }

  @Test func anAbsurdButWellFormedTimeIsShownRawInsteadOfTrapping() {
    #expect(formatTime(WallTime(seconds: 1e300)) == "1e+300")
    #expect(formatTime(WallTime(seconds: 1e300), relativeTo: WallTime(seconds: 1_800_000_000)).hasPrefix("1e+300 (in "))
  }
}
