import Glibc
import LocalAuthCore
import LocalAuthTestSupport
import LocalAuthTesting
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

    func info(_ text: String) throws(LocalAuthError) { probe("info") }
    func error(_ text: String) throws(LocalAuthError) { probe("error") }
    func secret(_ prompt: String) throws(LocalAuthError) -> SecretBytes {
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
    func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent {
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

/// No lock held hostage (docs/RELIABILITY.md, "Locks: bounded waits"): every lock wait is bounded and names the
/// holder, and a passcode check charges the attempt under the lock, then hashes without it.
@Suite(.serialized)
struct LockHostageUnitTests {
  /// The yescrypt cost that makes one hash take seconds (about 3 s and 1 GiB here), so a test can act mid-hash.
  static let slowCost: UInt = 11
  static let wrong = "9999"

  /// A state folder with a passcode hashed at `slowCost`, and how long that one hash took.
  static func slowWorld(_ folder: TemporaryFolder) throws -> (store: FileStateStore, user: UserName, hashSeconds: Double) {
    let store = FileStateStore(root: folder.state)
    let user = try UserName("alice")
    var settings = EvaluationSettings()
    settings.hasher = PasscodeHasher(cost: slowCost)
    let started = monotonicSeconds()
    try Administration(store: store, clock: ManualClock(), settings: settings).setPasscode(SecretBytes("1234"), for: user)
    return (store, user, monotonicSeconds() - started)
  }

  /// The process state letter from /proc/PID/stat ("R", "S", "T" stopped, "Z" ended), nil once reaped.
  static func processState(_ pid: pid_t) -> String? {
    guard let bytes = try? readWhole("/proc/\(pid)/stat") else { return nil }
    let text = String(decoding: bytes, as: UTF8.self)
    // "PID (comm) S ...": the command may hold spaces and parentheses, so the state follows the last ')'.
    guard let close = text.lastIndex(of: ")") else { return nil }
    return String(text[close...].dropFirst(2).prefix(1))
  }

  /// Starts the localauth-fuzz passcode helper (one deviceOwnerAuthentication with `wrong`) and waits until its
  /// attempt shows up as charged and the lock is free again; returns the child and the seconds the charge took to
  /// show after the start.
  static func startCheck(_ folder: TemporaryFolder, _ world: (store: FileStateStore, user: UserName, hashSeconds: Double))
    throws -> (child: ChildProcess, chargedAfter: Double?)
  {
    let gate = StartGate()
    let child = ChildProcess.start(
      helperPath(), ["passcode", folder.state, world.user.value, wrong, "1700000000", "0"], stdin: gate.readEnd)
    let started = monotonicSeconds()
    gate.open()
    while monotonicSeconds() - started < world.hashSeconds * 3 + 5 {
      if (try world.store.load(world.user))?.passcodeFailures == 1 {
        let charged = monotonicSeconds() - started
        // The charge is visible from its rename on, but the writer still holds the lock while it flushes the
        // folder: wait for the release, so that what is stopped or killed next is the hash, not that flush
        // (on a loaded machine a stop could otherwise land in the few milliseconds between the two).
        let lockPath = folder.state + "/locks/" + world.user.value
        let deadline = monotonicSeconds() + 2
        while !LockScopeTests.lockIsFree(lockPath) && monotonicSeconds() < deadline { usleep(1_000) }
        return (child, charged)
      }
      if processState(child.pid) == "Z" { break }
      usleep(5_000)
    }
    return (child, nil)
  }

  @Test func aLockHeldByAStoppedProcessMakesUpdateFailAfterTheBoundNamingTheHolder() throws {
    #expect(FileSyscalls.lockWaitSeconds == 5)
    guard access("/usr/bin/flock", X_OK) == 0 else {
      Issue.record("util-linux flock(1) is missing")
      return
    }
    let folder = TemporaryFolder("lock-timeout")
    let store = FileStateStore(root: folder.state)
    let user = try UserName("alice")
    try store.update(user) { $0.passcodeFailures = 2 }
    let lockPath = folder.state + "/locks/alice"
    // flock -F takes the lock and execs sleep in the same process, which then stops, as a stopped su would.
    let holder = ChildProcess.start("/usr/bin/flock", ["-F", lockPath, "/bin/sleep", "60"])
    defer {
      holder.kill()
      _ = holder.wait()
    }
    let deadline = monotonicSeconds() + 5
    while LockScopeTests.lockIsFree(lockPath) && monotonicSeconds() < deadline { usleep(5_000) }
    #expect(!LockScopeTests.lockIsFree(lockPath), "the holder never took the lock")
    kill(holder.pid, SIGSTOP)

    let started = monotonicSeconds()
    var caught: StateError?
    do {
      try store.update(user) { $0.passcodeFailures = 0 }
    } catch {
      if case .state(let state) = error { caught = state }
    }
    let waited = monotonicSeconds() - started
    #expect(waited >= 4.9 && waited < 7, "waited \(waited) s")
    #expect(caught == .lockTimeout(path: lockPath, seconds: 5, holder: LockHolder(pid: holder.pid, command: "sleep")))
    #expect(
      caught?.description
        == "Timed out after 5 seconds waiting for the state lock of user alice held by pid \(holder.pid) (sleep).")
    #expect(LockHolder.find(forLockAt: lockPath) == LockHolder(pid: holder.pid, command: "sleep"))
    #expect(try store.load(user)?.passcodeFailures == 2, "nothing was written without the lock")

    // Once the holder is gone, the same update goes through at once.
    holder.kill()
    _ = holder.wait()
    let again = monotonicSeconds()
    try store.update(user) { $0.passcodeFailures = 0 }
    #expect(monotonicSeconds() - again < 1)
    #expect(try store.load(user)?.passcodeFailures == 0)
    #expect(LockHolder.find(forLockAt: lockPath) == nil)
    report("lock scope: a lock held by a stopped process failed the update after \(wholeText(waited)) s, naming pid and command")
  }

  @Test func aCheckStoppedMidHashLeavesTheAttemptCountedAndTheLockFree() throws {
    let folder = TemporaryFolder("lock-stop")
    let world = try Self.slowWorld(folder)
    let lockPath = folder.state + "/locks/alice"
    let (child, chargedAfter) = try Self.startCheck(folder, world)
    defer {
      child.kill()
      _ = child.wait()
    }
    // The attempt is charged before yescrypt runs: well within one hash time, never only after it.
    #expect(chargedAfter != nil && chargedAfter! < world.hashSeconds * 0.6,
      "charged after \(chargedAfter ?? -1) s; one hash takes \(world.hashSeconds) s")
    kill(child.pid, SIGSTOP)
    let deadline = monotonicSeconds() + 5
    while Self.processState(child.pid) != "T" && monotonicSeconds() < deadline { usleep(2_000) }
    #expect(Self.processState(child.pid) == "T")

    #expect(LockScopeTests.lockIsFree(lockPath), "the stopped check holds the user's lock")
    #expect(try world.store.load(world.user)?.passcodeFailures == 1)
    #expect(try world.store.load(world.user)?.passcodeNextAllowed == nil, "no delay for a first failure")
    if LockScopeTests.lockIsFree(lockPath) {
      let started = monotonicSeconds()
      let seen = try world.store.update(world.user) { $0.passcodeFailures }
      #expect(seen == 1)
      #expect(monotonicSeconds() - started < 1)
    }

    kill(child.pid, SIGCONT)
    let output = child.readRest()
    #expect(child.wait() == .exited(0), "\(output)")
    #expect(output.contains("wrong"), "\(output)")
    let record = try world.store.load(world.user)
    #expect(record?.passcodeFailures == 1, "counted once, not twice")
    #expect(record?.lastWrongPasscodeHash != nil)
    report("lock scope: a check stopped mid-hash (\(wholeText(world.hashSeconds)) s yescrypt) had its attempt counted and held no lock")
  }

  @Test func aCheckKilledMidHashLeavesTheAttemptCountedAndTheLockFree() throws {
    let folder = TemporaryFolder("lock-kill")
    let world = try Self.slowWorld(folder)
    let lockPath = folder.state + "/locks/alice"
    let (child, chargedAfter) = try Self.startCheck(folder, world)
    #expect(chargedAfter != nil && chargedAfter! < world.hashSeconds * 0.6,
      "charged after \(chargedAfter ?? -1) s; one hash takes \(world.hashSeconds) s")
    child.kill()
    #expect(child.wait() == .signalled(SIGKILL))
    _ = child.readRest()
    #expect(LockScopeTests.lockIsFree(lockPath))
    let record = try world.store.load(world.user)
    #expect(record?.passcodeFailures == 1, "killing the check mid-hash did not undo the attempt")
    #expect(record?.lastWrongPasscodeHash == nil, "the result was never recorded")
    report("lock scope: a check killed mid-hash left its attempt counted")
  }
}

/// Seconds with one decimal, for report lines.
private func wholeText(_ seconds: Double) -> String { String(Double(Int(seconds * 10)) / 10) }
