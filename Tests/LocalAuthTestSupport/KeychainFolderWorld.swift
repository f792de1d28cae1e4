import LocalAuthCore
import LocalAuthTesting

/// One user's world with a real keychain, the base of the unit tiers' keychain and rights worlds: a temporary
/// root-only state folder (records and keychain items on disk, removed with the world), a manual clock, a scripted
/// sensor and prompter, an in-memory log, and a cheap passcode hash (cost 1).
open class KeychainFolderWorld: @unchecked Sendable {
  package let clock = ManualClock()
  /// The state folder (0700).
  package let root: String
  package let store: FileStateStore
  package let keychain: Keychain
  package let scripted: ScriptedSensor
  package let prompter = ScriptedPrompter()
  package let log = MemoryLog()
  package let settings: EvaluationSettings
  package let user: String
  package let simulator = BiometricSimulator(worldSeed: 0x5EED_CAFE)
  private var rng: SplitMix64
  private let lock = Mutex()

  /// A world for `user` in a new folder made from `template`; `seed` seeds the captures (each tier keeps its own,
  /// so its samples stay what its tests were written against).
  public init(template: String, user: String, seed: UInt64, limits: KeychainLimits = KeychainLimits()) throws {
    self.user = user
    rng = SplitMix64(seed: seed)
    root = try TemporaryFolder.make(template)
    store = FileStateStore(root: root)
    keychain = Keychain(root: root, tcti: nil, clock: clock, limits: limits)
    var settings = EvaluationSettings()
    settings.hasher = PasscodeHasher(cost: 1)
    self.settings = settings
    scripted = ScriptedSensor(modality: .touchID, clock: clock)
  }

  deinit { TemporaryFolder.remove(root) }

  package var userName: UserName { get throws { try UserName(user) } }

  package var dependencies: Dependencies {
    Dependencies(clock: clock, store: store, sensor: scripted, prompter: prompter, log: log, keychain: keychain)
  }

  package var administration: Administration { Administration(store: store, clock: clock, settings: settings, keychain: keychain) }

  /// Enrolls one of the user's fingers.
  package func enroll(_ item: String) throws {
    let template = lock.withLock { simulator.enroll(owner: user, item: item, modality: .touchID, at: clock.now(), using: &rng) }
    try administration.enroll(template, for: try userName)
  }

  /// Enters `passcode` once through the core and returns the outcome (after an enrolment change, biometry needs
  /// it first: rule 6).
  package func enterPasscode(_ passcode: String = "1234") throws -> EvaluationOutcome {
    prompter.enqueue(passcode)
    let request = EvaluationRequest(user: try userName, policy: .deviceOwnerAuthentication, reason: "unlock")
    return try PolicyEvaluator(dependencies: dependencies, settings: settings).evaluate(request)
  }

  /// Queues the user's own finger.
  package func touch(_ item: String = "right-index") { scripted.enqueue(capture(item, from: user)) }

  /// Queues another person's finger.
  package func impostor() { scripted.enqueue(capture("right-index", from: "mallory")) }

  /// Queues the Cancel button.
  package func cancel() { scripted.enqueue(.cancel) }

  private func capture(_ item: String, from owner: String) -> SensorEvent {
    let identity = simulator.identity(owner: owner, item: item, modality: .touchID)
    return lock.withLock { .sample(simulator.capture(identity, modality: .touchID, quality: 0.95, using: &rng)) }
  }
}
