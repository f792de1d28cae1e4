import Glibc
import LocalAuthCore
import Testing

/// The user's lock is free whenever the user is being asked something or the sensor is waited on.
@Suite(.serialized)
struct LockScopeTests {
  /// True when nobody holds `path`'s flock (a second open file description cannot take it otherwise).
  static func lockIsFree(_ path: String) -> Bool {
    let fd = open(path, O_RDWR | O_CLOEXEC)
    guard fd >= 0 else { return true }
    defer { close(fd) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
    flock(fd, LOCK_UN)
    return true
  }

  final class ProbingPrompter: AuthPrompter {
    let lockPath: String
    let answers: [String]
    var asked = 0
    var heldDuring: [String] = []
    var probes = 0

    init(lockPath: String, answers: [String]) {
      self.lockPath = lockPath
      self.answers = answers
    }

    func probe(_ what: String) {
      probes += 1
      if !LockScopeTests.lockIsFree(lockPath) { heldDuring.append(what) }
    }

    func info(_ text: String) throws { probe("info") }
    func error(_ text: String) throws { probe("error") }
    func secret(_ prompt: String) throws -> SecretBytes {
      probe("secret")
      defer { asked += 1 }
      return SecretBytes(answers[min(asked, answers.count - 1)])
    }
  }

  final class ProbingSensor: BiometricSensor {
    let lockPath: String
    let inner: ScriptedSensor
    var heldDuring = 0
    var probes = 0

    init(lockPath: String, inner: ScriptedSensor) {
      self.lockPath = lockPath
      self.inner = inner
    }

    var modality: Modality? { inner.modality }
    func nextEvent(for user: UserName, deadline: WallTime) throws -> SensorEvent {
      probes += 1
      if !LockScopeTests.lockIsFree(lockPath) { heldDuring += 1 }
      return try inner.nextEvent(for: user, deadline: deadline)
    }
  }

  @Test func theLockIsNeverHeldAcrossAPromptOrASensorWait() throws {
    let folder = TemporaryFolder("lock-scope")
    let world = try PrimedWorld(store: FileStateStore(root: folder.state))
    let lockPath = folder.state + "/locks/" + world.user.value
    #expect(exists(lockPath))
    var probes = 0
    for policy in AuthPolicy.allCases {
      // Wrong fingers (failures are written), then wrong and right passcodes: every path that writes.
      let sensor = ProbingSensor(
        lockPath: lockPath,
        inner: ScriptedSensor(modality: .touchID, clock: world.clock, events: [world.impostor(seed: 1), world.impostor(seed: 2), world.impostor(seed: 4)]))
      let prompter = ProbingPrompter(lockPath: lockPath, answers: ["wrong", "1234"])
      world.clock.advance(by: 1)
      _ = try world.evaluator(sensor: sensor, prompter: prompter).evaluate(world.request(policy))
      _ = try world.evaluator(sensor: AbsentSensor(), prompter: prompter).evaluate(world.request(policy))
      #expect(prompter.heldDuring.isEmpty, "\(policy.name): the lock was held during \(prompter.heldDuring)")
      #expect(sensor.heldDuring == 0, "\(policy.name): the lock was held during \(sensor.heldDuring) sensor waits")
      probes += prompter.probes + sensor.probes
    }
    // The control: the probe does see a held lock.
    let held = try FileSyscalls.lockExclusive(lockPath)
    #expect(!Self.lockIsFree(lockPath))
    held.release()
    report("concurrency: the user's lock was free at all \(probes) prompts, messages and sensor waits of both policies")
  }
}
