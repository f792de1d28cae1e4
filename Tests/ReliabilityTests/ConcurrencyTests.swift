import Glibc
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// 64 processes at once: wrong passcodes for one user must all be counted, and none may slip past the delay;
/// processes for 64 different users must not wait on one another.
@Suite(.serialized)
struct ConcurrencyTests {
  static let processes = 64
  static let start = 1_800_000_000.0

  /// Sets `passcode` for each user, with the cheapest yescrypt cost.
  static func prepare(_ root: String, users: [String], passcode: String = "1234") throws {
    let store = FileStateStore(root: root)
    let hash = try PasscodeHasher(cost: 1).hash(SecretBytes(passcode))
    for user in users {
      try store.update(UserName(user)) { record in record.passcodeHash = hash }
    }
  }

  /// Starts one `passcode` helper per entry, lets them all go at once, and returns their answers and the wall time.
  static func wave(_ root: String, _ runs: [(user: String, passcode: String)], now: Double, holdMilliseconds: Int = 0)
    -> (answers: [String], seconds: Double)
  {
    let gate = StartGate()
    let helper = helperPath()
    let began = monotonicSeconds()
    let children = runs.map {
      ChildProcess.start(helper, ["passcode", root, $0.user, $0.passcode, String(now), String(holdMilliseconds)], stdin: gate.readEnd)
    }
    gate.open()
    var answers: [String] = []
    for child in children {
      let output = child.readRest().split(separator: "\n").last.map(String.init) ?? ""
      let ending = child.wait()
      answers.append(ending == .exited(0) ? output : "ended \(ending): \(output)")
    }
    return (answers, monotonicSeconds() - began)
  }

  @Test func wrongPasscodesForOneUserAreAllCountedAndNoneSlipsPastTheDelay() throws {
    let folder = TemporaryFolder("same-user")
    let store = FileStateStore(root: folder.state)
    let user = try UserName("target")
    try Self.prepare(folder.state, users: [user.value])
    // Each process types a different wrong passcode (repeating one wrong entry counts once, by design).
    func runs(_ wave: Int) -> [(user: String, passcode: String)] {
      (0..<Self.processes).map { (user.value, "wrong-\(wave)-\($0)") }
    }

    // Wave 1: all at once. Exactly five checks may run; the fifth failure starts the one-minute delay.
    let first = Self.wave(folder.state, runs(1), now: Self.start)
    let wrong1 = first.answers.filter { $0 == "wrong" }.count
    let delayed1 = first.answers.filter { $0 == "delayed" }.count
    #expect(wrong1 + delayed1 == Self.processes, "unexpected answers: \(Set(first.answers))")
    var record = try #require(try store.load(user))
    #expect(record.passcodeFailures == wrong1, "recorded \(record.passcodeFailures) failures for \(wrong1) checks")
    #expect(wrong1 == 5, "\(wrong1) checks ran before the first delay")
    #expect(record.passcodeNextAllowed == WallTime(seconds: Self.start + 60))

    // Wave 2: one second before the delay expires: no check at all.
    let second = Self.wave(folder.state, runs(2), now: Self.start + 59)
    #expect(second.answers.allSatisfy { $0 == "delayed" }, "checks ran during the delay: \(Set(second.answers))")
    record = try #require(try store.load(user))
    #expect(record.passcodeFailures == 5)

    // Wave 3: after the delay: exactly one check runs, its failure starts the five-minute delay.
    let third = Self.wave(folder.state, runs(3), now: Self.start + 61)
    let wrong3 = third.answers.filter { $0 == "wrong" }.count
    #expect(wrong3 == 1 && third.answers.filter { $0 == "delayed" }.count == Self.processes - 1, "\(Set(third.answers))")
    record = try #require(try store.load(user))
    #expect(record.passcodeFailures == 6)
    #expect(record.passcodeNextAllowed == WallTime(seconds: Self.start + 61 + 300))
    #expect(!(first.answers + second.answers + third.answers).contains("success"))
    report(
      "concurrency: \(3 * Self.processes) wrong-passcode processes for one user in 3 waves of \(Self.processes): "
        + "\(wrong1 + wrong3) checks performed, \(record.passcodeFailures) failures recorded, "
        + "\(wrong1) checks before the first delay, 0 during it")
  }

  @Test func processesForDifferentUsersDoNotWaitOnOneAnother() throws {
    let folder = TemporaryFolder("many-users")
    let users = (0..<Self.processes).map { "user-\($0)" }
    try Self.prepare(folder.state, users: users)
    // Each process holds its user's lock 250 ms, as a slow disk would; one lock for all would take 64 × that.
    let hold = 250
    let single = Self.wave(folder.state, [(users[0], "wrong-single")], now: Self.start, holdMilliseconds: hold)
    #expect(single.answers == ["wrong"])
    let all = Self.wave(
      folder.state, users.dropFirst().map { ($0, "wrong-all") } + [(users[0], "wrong-again")], now: Self.start,
      holdMilliseconds: hold)
    #expect(all.answers.allSatisfy { $0 == "wrong" }, "\(Set(all.answers))")
    let serialized = Double(Self.processes) * single.seconds
    let ratio = all.seconds / serialized
    #expect(ratio < 0.5, "64 users took \(all.seconds) s against \(serialized) s if serialized")
    let store = FileStateStore(root: folder.state)
    for user in users.dropFirst() { #expect(try store.load(UserName(user))?.passcodeFailures == 1) }
    // The control: eight processes for one user do queue on its lock, so the measurement can see a shared lock.
    let queued = Self.wave(folder.state, (0..<8).map { (users[1], "wrong-queued-\($0)") }, now: Self.start, holdMilliseconds: hold)
    #expect(queued.seconds >= 8 * Double(hold) / 1000 * 0.9, "8 processes for one user took only \(queued.seconds) s")
    report(
      "concurrency: \(Self.processes) processes for \(Self.processes) different users holding the lock \(hold) ms each: "
        + "\(formatSeconds(all.seconds)) s in all, against \(formatSeconds(single.seconds)) s for one "
        + "(ratio \(formatSeconds(ratio)) of fully serialized); control: 8 processes for one user queued for "
        + "\(formatSeconds(queued.seconds)) s")
  }
}

/// Two decimals.
func formatSeconds(_ value: Double) -> String {
  let hundredths = Int((value * 100).rounded())
  let fraction = hundredths % 100
  return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
