import Glibc
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// Writers of the state are SIGKILLed at random moments; every record must still load, whole and never older.
@Suite(.serialized)
struct CrashSafetyTests {
  /// Kills at least this many writers in total.
  static let requiredKills = 1000
  /// Writers running at once: two share a user (lock contention), two have their own.
  static let writerUsers = ["shared", "shared", "solo-a", "solo-b"]

  @Test func sigkilledWritersLoseNothingAndNeverGoBackwards() throws {
    let folder = TemporaryFolder("crash")
    let store = FileStateStore(root: folder.state)
    let helper = helperPath()
    #expect(exists(helper), "the localauth-fuzz helper is missing at \(helper)")
    var rng = SystemRandomNumberGenerator()
    var kills = 0
    var killedAfterFirstWrite = 0
    var committed = 0
    var lastSeen: [String: Int] = [:]
    var interruptedWrites = 0
    let started = monotonicSeconds()
    while kills < Self.requiredKills {
      let children = Self.writerUsers.map { ChildProcess.start(helper, ["writer", folder.state, $0, "0"]) }
      var printed: [String: [Int]] = [:]
      var firstLines: [String] = Array(repeating: "", count: children.count)
      for (index, child) in children.enumerated() {
        // Waiting for the first committed value puts the kill inside the update loop, not in process start-up.
        if let first = child.readLine() {
          firstLines[index] = first
          if let value = Int(first) {
            printed[Self.writerUsers[index], default: []].append(value)
            killedAfterFirstWrite += 1
          }
        }
      }
      usleep(UInt32.random(in: 0...6000, using: &rng))
      for child in children {
        usleep(UInt32.random(in: 0...300, using: &rng))
        child.kill()
      }
      for (index, child) in children.enumerated() {
        let ending = child.wait()
        let rest = child.readRest()
        #expect(ending == .signalled(SIGKILL), "writer ended with \(ending): \(firstLines[index]) \(rest.suffix(300))")
        if ending == .signalled(SIGKILL) { kills += 1 }
        printed[Self.writerUsers[index], default: []] += rest.split(separator: "\n").compactMap { Int($0) }
      }
      for user in Set(Self.writerUsers) where exists(folder.state + "/users/." + user + ".tmp") {
        // A temporary file left behind means a kill landed between its creation and the rename.
        interruptedWrites += 1
      }
      for user in Set(Self.writerUsers) {
        let values = printed[user] ?? []
        let writers = Self.writerUsers.filter { $0 == user }.count
        // Two writers never commit the same value: no update was lost to a race.
        #expect(Set(values).count == values.count, "user \(user): a value was committed twice: \(values.sorted())")
        committed += values.count
        let record = try store.load(UserName(user))
        let stored = record?.enrollmentGeneration ?? 0
        let highest = values.max() ?? 0
        #expect(stored >= highest, "user \(user): stored \(stored) is older than committed \(highest)")
        #expect(stored <= max(highest, lastSeen[user] ?? 0) + writers, "user \(user): stored \(stored) was never written")
        #expect(stored >= lastSeen[user] ?? 0, "user \(user): counter went backwards")
        if let record {
          #expect(record.biometricFailures == stored && record.passcodeFailures == stored, "user \(user): a torn record")
          #expect(record.features.count == stored % 7, "user \(user): a torn record")
        }
        lastSeen[user] = stored
      }
    }
    let elapsed = monotonicSeconds() - started
    for user in Set(Self.writerUsers) {
      #expect(throws: Never.self) { _ = try store.load(UserName(user)) }
    }
    #expect(try Set(store.users().map(\.value)) == Set(Self.writerUsers))
    let leftovers = try FileSyscalls.listDirectory(folder.state + "/users").filter { $0.hasPrefix(".") }
    #expect(leftovers.count <= Set(Self.writerUsers).count, "stale temporary files: \(leftovers.count)")
    report(
      "crash safety: \(kills) writers SIGKILLed (\(killedAfterFirstWrite) mid-update-loop, \(interruptedWrites) between temporary file and rename), \(committed) updates acknowledged, "
        + "0 lost, 0 torn, 0 unreadable, counters never went backwards, \(leftovers.count) temporary files left "
        + "(\(Int(elapsed)) s)")
  }
}
