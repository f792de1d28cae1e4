#if canImport(Glibc)
import Glibc
#endif
@testable import LocalAuthCore
import LocalAuthTestSupport
import LocalAuthTesting
import Testing

/// One simulated machine for a test: manual clock, store, scripted sensor and prompter, memory log.
final class TestWorld {
  let clock: ManualClock
  let store: StateStore
  let sensor: ScriptedSensor
  let prompter = ScriptedPrompter()
  let log = MemoryLog()
  /// The matcher; a test may script it instead (ScriptedMatcher).
  var matcher: BiometricMatcher = SimulatedMatcher()
  var settings: EvaluationSettings
  /// The password database for `passcode=account`; nil keeps the system's.
  var accountPasswords: AccountPasswords?
  let simulator = BiometricSimulator(worldSeed: 0x5EED)
  var rng: SplitMix64
  let user: UserName
  let modality: Modality

  /// The passcode `prime()` sets.
  static let passcode = "1234"
  /// The finger or appearance `prime()` enrolls.
  static let item = "right-index"

  init(
    modality: Modality = .touchID, sensorPresent: Bool = true, store: StateStore = InMemoryStateStore(),
    clock: ManualClock = ManualClock(), user: String = "alice", seed: UInt64 = 7
  ) throws {
    self.clock = clock
    self.store = store
    self.modality = modality
    self.sensor = ScriptedSensor(modality: sensorPresent ? modality : nil, clock: clock)
    self.user = try UserName(user)
    self.rng = SplitMix64(seed: seed)
    var settings = EvaluationSettings()
    settings.hasher = PasscodeHasher(cost: 1)
    self.settings = settings
  }

  var dependencies: Dependencies {
    var dependencies = Dependencies(clock: clock, store: store, sensor: sensor, prompter: prompter, log: log, matcher: matcher)
    if let accountPasswords { dependencies.accountPasswords = accountPasswords }
    return dependencies
  }
  var evaluator: PolicyEvaluator { PolicyEvaluator(dependencies: dependencies, settings: settings) }
  var admin: Administration { Administration(store: store, clock: clock, settings: settings) }

  func record() throws -> UserRecord { try store.load(user) ?? UserRecord() }

  // MARK: Set-up

  /// Enrolls `item` of `owner` (default: this world's user) for this world's modality.
  func enroll(_ item: String = TestWorld.item, for owner: UserName? = nil) throws {
    let who = owner ?? user
    let template = simulator.enroll(owner: who.value, item: item, modality: modality, at: clock.now(), using: &rng)
    try admin.enroll(template, for: who)
  }

  func setPasscode(_ passcode: String = TestWorld.passcode, for owner: UserName? = nil) throws {
    try admin.setPasscode(SecretBytes(passcode), for: owner ?? user)
  }

  /// Sets the passcode, enrolls one item, and enters the passcode once in this boot, so that biometry is usable.
  func prime(enroll doEnroll: Bool = true) throws {
    try setPasscode()
    if doEnroll { try enroll() }
    prompter.enqueue(TestWorld.passcode)
    let outcome = try evaluator.evaluate(request(.deviceOwnerAuthentication))
    #expect(outcome == .success(.passcode))
  }

  func request(
    _ policy: AuthPolicy, reason: String = "unlock the test", fallbackTitle: String? = nil, cancelTitle: String? = nil,
    reuse: Double = 0, interactionAllowed: Bool = true, cancellation: CancellationFlag? = nil, user other: UserName? = nil
  ) -> EvaluationRequest {
    EvaluationRequest(
      user: other ?? user, policy: policy, reason: reason, fallbackTitle: fallbackTitle, cancelTitle: cancelTitle,
      reuseDuration: reuse, interactionAllowed: interactionAllowed, cancellation: cancellation)
  }

  func evaluate(_ policy: AuthPolicy, fallbackTitle: String? = nil, reuse: Double = 0) throws -> EvaluationOutcome {
    try evaluator.evaluate(request(policy, fallbackTitle: fallbackTitle, reuse: reuse))
  }

  // MARK: Samples

  /// A capture of the enrolled item at normal quality.
  func genuine(_ item: String = TestWorld.item, quality: Double = 0.9) -> SensorEvent {
    let identity = simulator.identity(owner: user.value, item: item, modality: modality)
    return .sample(simulator.capture(identity, modality: modality, quality: quality, using: &rng))
  }

  /// A capture of someone else's finger or face.
  func impostor(quality: Double = 0.9) -> SensorEvent {
    let identity = simulator.identity(owner: "mallory", item: "left-thumb", modality: modality)
    return .sample(simulator.capture(identity, modality: modality, quality: quality, using: &rng))
  }

  /// A capture too poor to match (quality below 0.2): a retry, not a failure.
  func poor() -> SensorEvent {
    let identity = simulator.identity(owner: user.value, item: TestWorld.item, modality: modality)
    return .sample(simulator.capture(identity, modality: modality, quality: 0.1, using: &rng))
  }

  func present(_ events: SensorEvent...) { for e in events { sensor.enqueue(e) } }

  /// Transcript lines shown with `prefix` ("info: ", "error: ", "prompt: ").
  func shown(_ prefix: String) -> [String] { prompter.transcript.filter { $0.hasPrefix(prefix) } }
}

/// A temporary root-owned 0700 folder, removed by `remove()`.
struct TempFolder {
  let path: String

  init() throws {
    path = try TemporaryFolder.make("/tmp/localauth-core-XXXXXX")
  }

  func remove() { TemporaryFolder.remove(path) }
}
