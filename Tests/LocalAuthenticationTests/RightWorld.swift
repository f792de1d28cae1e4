import Foundation
import LocalAuthCore
import LocalAuthTesting
import LocalAuthentication
import Testing

/// One user's world for persisted rights: a temporary root-only state folder with a real keychain (records and
/// items on disk), a manual clock, a scripted sensor and prompter; every call runs with `LAContext` and
/// `LARightStore` evaluating in it (`LAContext.defaultConfiguration`).
final class RightWorld: @unchecked Sendable {
  let clock = ManualClock()
  let root: String
  let store: FileStateStore
  let keychain: Keychain
  let scripted: ScriptedSensor
  let prompter = ScriptedPrompter()
  let log = MemoryLog()
  let settings: EvaluationSettings
  let user = "alice"
  let simulator = BiometricSimulator(worldSeed: 0x5EED_CAFE)
  private var rng = SplitMix64(seed: 11)
  private let lock = NSLock()

  init() throws {
    var template = [CChar]("/tmp/localauth-rights.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
    root = String(cString: made)
    store = FileStateStore(root: root)
    keychain = Keychain(root: root, tcti: nil, clock: clock)
    var settings = EvaluationSettings()
    settings.hasher = PasscodeHasher(cost: 1)
    self.settings = settings
    scripted = ScriptedSensor(modality: .touchID, clock: clock)
  }

  deinit { try? FileManager.default.removeItem(atPath: root) }

  var userName: UserName { get throws { try UserName(user) } }

  var dependencies: Dependencies {
    Dependencies(clock: clock, store: store, sensor: scripted, prompter: prompter, log: log, keychain: keychain)
  }

  var configuration: LAContextConfiguration { LAContextConfiguration(dependencies: dependencies, settings: settings, user: user) }

  var administration: Administration { Administration(store: store, clock: clock, settings: settings, keychain: keychain) }

  /// One finger enrolled, the passcode 1234 set and entered once.
  static func ready() throws -> RightWorld {
    let world = try RightWorld()
    try world.enroll("right-index")
    try world.administration.setPasscode(SecretBytes("1234"), for: try world.userName)
    try world.unlockWithPasscode()
    return world
  }

  /// Enrolls one of the user's fingers.
  func enroll(_ item: String) throws {
    let template = lock.withLock { simulator.enroll(owner: user, item: item, modality: .touchID, at: clock.now(), using: &rng) }
    try administration.enroll(template, for: try userName)
  }

  /// Enters the passcode once through the core (after an enrolment change, biometry needs it first: rule 6).
  func unlockWithPasscode() throws {
    prompter.enqueue("1234")
    let request = EvaluationRequest(user: try userName, policy: .deviceOwnerAuthentication, reason: "unlock")
    #expect(try PolicyEvaluator(dependencies: dependencies, settings: settings).evaluate(request) == .success(.passcode))
  }

  /// Queues the user's own finger.
  func touch(_ item: String = "right-index") { scripted.enqueue(capture(item, from: user)) }

  /// Queues the Cancel button.
  func cancel() { scripted.enqueue(.cancel) }

  /// Queues another person's finger.
  func impostor() { scripted.enqueue(capture("right-index", from: "mallory")) }

  private func capture(_ item: String, from owner: String) -> SensorEvent {
    let identity = simulator.identity(owner: owner, item: item, modality: .touchID)
    return lock.withLock { .sample(simulator.capture(identity, modality: .touchID, quality: 0.95, using: &rng)) }
  }

  /// Runs `body` with `LAContext()`, `LARight()` and `LARightStore.shared` evaluating in this world.
  func run<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
    try await LAContext.$defaultConfiguration.withValue(configuration) { try await body() }
  }

  /// The user's items in the store's reserved access group.
  var rightItems: [KeychainItem] {
    get throws { try keychain.items(for: try userName).filter { $0.accessGroup == RightStore.accessGroup } }
  }
}
