import Foundation
import LocalAuthCore
import LocalAuthTesting
import LocalAuthentication
import Security
import Testing

/// One user's world with a real keychain: a temporary root-only state folder (records and keychain on disk),
/// a manual clock, a scripted sensor and prompter.
final class KeychainWorld: @unchecked Sendable {
  let clock = ManualClock()
  let root: String
  let store: FileStateStore
  let keychain: Keychain
  let scripted: ScriptedSensor
  let prompter = ScriptedPrompter()
  let log = MemoryLog()
  let settings: EvaluationSettings
  let user: String
  let simulator = BiometricSimulator(worldSeed: 0x5EED_CAFE)
  private var rng = SplitMix64(seed: 7)
  private let lock = NSLock()

  init(user: String = "alice", limits: KeychainLimits = KeychainLimits()) throws {
    self.user = user
    var template = [CChar]("/tmp/localauth-keychain.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
    root = String(cString: made)
    store = FileStateStore(root: root)
    keychain = Keychain(root: root, tcti: nil, clock: clock, limits: limits)
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

  /// One finger enrolled, the passcode set and entered once: the world of the seed's snippet.
  static func ready(user: String = "alice", limits: KeychainLimits = KeychainLimits()) throws -> KeychainWorld {
    let world = try KeychainWorld(user: user, limits: limits)
    try world.enroll("right-index")
    try world.administration.setPasscode(SecretBytes("1234"), for: try world.userName)
    world.prompter.enqueue("1234")
    let request = EvaluationRequest(user: try world.userName, policy: .deviceOwnerAuthentication, reason: "unlock")
    #expect(try PolicyEvaluator(dependencies: world.dependencies, settings: world.settings).evaluate(request) == .success(.passcode))
    return world
  }

  func enroll(_ item: String) throws {
    let template = lock.withLock { simulator.enroll(owner: user, item: item, modality: .touchID, at: clock.now(), using: &rng) }
    try administration.enroll(template, for: try userName)
  }

  /// Queues the user's own finger.
  func touch(_ item: String = "right-index") { scripted.enqueue(capture(item, from: user)) }

  /// Queues another person's finger.
  func impostor() { scripted.enqueue(capture("right-index", from: "mallory")) }

  /// Queues the Cancel button.
  func cancel() { scripted.enqueue(.cancel) }

  private func capture(_ item: String, from owner: String) -> SensorEvent {
    let identity = simulator.identity(owner: owner, item: item, modality: .touchID)
    return lock.withLock { .sample(simulator.capture(identity, modality: .touchID, quality: 0.95, using: &rng)) }
  }

  /// Runs `body` with `LAContext()` evaluating in this world.
  func run<T>(_ body: () throws -> T) rethrows -> T {
    try LAContext.$defaultConfiguration.withValue(configuration) { try body() }
  }

  /// The names of the item files in the user's keychain folder.
  var itemFiles: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: root + "/keychain/" + user)) ?? []).filter { $0.hasPrefix("item-") }.sorted()
  }
}
