import Foundation
import LocalAuthCore
import LocalAuthTesting
import LocalAuthentication
import Testing

/// One user's test world: a manual clock, an in-memory store, a scripted sensor and prompter.
final class TestEnvironment: @unchecked Sendable {
  let clock = ManualClock()
  let store: StateStore
  let sensor: BiometricSensor
  let scripted: ScriptedSensor
  let prompter = ScriptedPrompter()
  let log = MemoryLog()
  let settings: EvaluationSettings
  let user: String
  let modality: Modality
  let simulator = BiometricSimulator(worldSeed: 0x5EED_CAFE)
  private var rng = SplitMix64(seed: 42)
  private let lock = NSLock()

  /// A world for `user` with a sensor of `modality` (nil: no sensor); `wrap` may replace the sensor or store.
  init(
    user: String = "alice", modality: Modality? = .touchID,
    store: StateStore = InMemoryStateStore(),
    wrapSensor: ((ScriptedSensor) -> BiometricSensor)? = nil
  ) {
    self.user = user
    self.modality = modality ?? .touchID
    self.store = store
    var settings = EvaluationSettings()
    settings.hasher = PasscodeHasher(cost: 1)
    self.settings = settings
    let scripted = ScriptedSensor(modality: modality, clock: clock)
    self.scripted = scripted
    self.sensor = wrapSensor?(scripted) ?? scripted
  }

  var userName: UserName { get throws { try UserName(user) } }

  var dependencies: Dependencies {
    Dependencies(clock: clock, store: store, sensor: sensor, prompter: prompter, log: log)
  }

  /// The configuration a context uses to evaluate in this world.
  var configuration: LAContextConfiguration {
    LAContextConfiguration(dependencies: dependencies, settings: settings, user: user)
  }

  /// A context in this world.
  func context() -> LAContext { LAContext(configuration: configuration) }

  /// The login session of the tests' console login and of the apps run in it (rule 7: apps reuse only a session
  /// unlock of their own login session).
  static let loginSession = "3"

  /// A context of an app run in the login session `unlockSessionWithFinger` unlocked.
  func sessionContext() -> LAContext {
    var configuration = configuration
    configuration.origin = RequestOrigin(service: "app", requesterName: user, processID: getpid(), loginSession: Self.loginSession, sessionLeader: "200@9")
    return LAContext(configuration: configuration)
  }

  /// Unlocks the login session with the user's finger, as a console login does: the one match apps may reuse.
  func unlockSessionWithFinger() throws {
    touch()
    var request = EvaluationRequest(
      user: try userName, policy: .deviceOwnerAuthenticationWithBiometrics, reason: "log in",
      origin: RequestOrigin(service: "login", tty: "tty1", loginSession: Self.loginSession, sessionLeader: "100@5"))
    request.purpose = .sessionUnlock
    let outcome = try PolicyEvaluator(dependencies: dependencies, settings: settings).evaluate(request)
    #expect(outcome == .success(.biometry))
  }

  var administration: Administration { Administration(store: store, clock: clock, settings: settings) }

  /// The user's record now.
  var record: UserRecord { get throws { try store.load(try userName) ?? UserRecord() } }

  /// Enrolls one of the user's fingers (or appearances).
  func enroll(_ item: String) throws {
    let template = lock.withLock {
      simulator.enroll(owner: user, item: item, modality: modality, at: clock.now(), using: &rng)
    }
    try administration.enroll(template, for: try userName)
  }

  /// Removes an enrolled item.
  func unenroll(_ item: String) throws { try administration.unenroll(item, for: try userName) }

  /// Sets the passcode.
  func setPasscode(_ passcode: String = "1234") throws {
    try administration.setPasscode(SecretBytes(passcode), for: try userName)
  }

  /// Enters the passcode once through the core (the first authentication after setting it needs the passcode).
  func unlockWithPasscode(_ passcode: String = "1234") throws {
    prompter.enqueue(passcode)
    let request = EvaluationRequest(user: try userName, policy: .deviceOwnerAuthentication, reason: "unlock")
    let outcome = try PolicyEvaluator(dependencies: dependencies, settings: settings).evaluate(request)
    #expect(outcome == .success(.passcode))
  }

  /// A world ready for biometry: one finger enrolled, a passcode set and entered once.
  static func ready(user: String = "alice", modality: Modality = .touchID) throws -> TestEnvironment {
    let environment = TestEnvironment(user: user, modality: modality)
    try environment.enroll(modality == .touchID ? "right-index" : "face")
    try environment.setPasscode()
    try environment.unlockWithPasscode()
    return environment
  }

  /// A good capture of `owner`'s `item` (default: the user's own enrolled one).
  func capture(_ item: String? = nil, from owner: String? = nil, quality: Double = 0.95) -> SensorEvent {
    let item = item ?? (modality == .touchID ? "right-index" : "face")
    let identity = simulator.identity(owner: owner ?? user, item: item, modality: modality)
    return lock.withLock { .sample(simulator.capture(identity, modality: modality, quality: quality, using: &rng)) }
  }

  /// Queues the user's own finger.
  func touch(_ item: String? = nil) { scripted.enqueue(capture(item)) }

  /// Queues someone else's finger (a real impostor attempt).
  func impostor() { scripted.enqueue(capture("right-index", from: "mallory")) }

  /// Lines shown to the user so far.
  var transcript: [String] { prompter.transcript }
}

/// Evaluates through the reply form and waits for the reply.
func evaluate(_ context: LAContext, _ policy: LAPolicy, reason: String = "unlock the vault") async -> (Bool, (any Error)?) {
  await withCheckedContinuation { continuation in
    context.evaluatePolicy(policy, localizedReason: reason) { success, error in
      continuation.resume(returning: (success, error))
    }
  }
}

/// The LAError code of an error, or nil.
func laCode(_ error: (any Error)?) -> LAError.Code? {
  error.flatMap { LAError(bridging: $0)?.code }
}

/// A store whose every call fails as it does for a caller that may not read the state.
final class DeniedStateStore: StateStore {
  let path = "/var/lib/localauth"
  func load(_ user: UserName) throws(LocalAuthError) -> UserRecord? { throw .state(.permissionDenied(path: path)) }
  func modify(_ user: UserName, _ body: (inout UserRecord) throws(LocalAuthError) -> Void) throws(LocalAuthError) {
    throw .state(.permissionDenied(path: path))
  }
  func remove(_ user: UserName) throws(LocalAuthError) { throw .state(.permissionDenied(path: path)) }
  func users() throws(LocalAuthError) -> [UserName] { throw .state(.permissionDenied(path: path)) }
}

/// A sensor that runs a hook when a prompt starts waiting, then behaves like the wrapped sensor.
final class HookSensor: BiometricSensor, @unchecked Sendable {
  let inner: BiometricSensor
  let hook: @Sendable () -> Void
  init(_ inner: BiometricSensor, hook: @escaping @Sendable () -> Void) {
    self.inner = inner
    self.hook = hook
  }
  var modality: Modality? { inner.modality }
  func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent {
    hook()
    return try inner.nextEvent(for: user, deadline: deadline)
  }
}

/// A thread-safe boolean.
final class Flag: @unchecked Sendable {
  private let lock = NSLock()
  private var stored = false
  /// Sets the flag.
  func set() { lock.withLock { stored = true } }
  /// The flag's value.
  var value: Bool { lock.withLock { stored } }
}

/// A context reference that a sensor hook can reach.
final class ContextBox: @unchecked Sendable {
  var context: LAContext?
}
