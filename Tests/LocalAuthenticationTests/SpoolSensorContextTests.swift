import Dispatch
import Foundation
import LocalAuthCore
import LocalAuthTesting
import LocalAuthentication
import Testing

/// A context over the real file store and spool sensor in a temporary state folder, with the system clock.
struct SpoolWorld {
  let base: String
  let root: String
  let clock = SystemClock()
  let prompter = ScriptedPrompter()
  let settings: EvaluationSettings
  let configuration: LAContextConfiguration
  let simulator: BiometricSimulator

  init() throws {
    base = FileManager.default.temporaryDirectory.appendingPathComponent("la-spool-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    root = base + "/state"
    var settings = EvaluationSettings()
    settings.hasher = PasscodeHasher(cost: 1)
    // Long enough that "ended by invalidate()" cannot be confused with "ended by the timeout", even when the suites
    // running beside this one (hash cost 11, real su and sshd) leave it little CPU.
    settings.sensorTimeout = 120
    self.settings = settings
    let log = MemoryLog()
    let store = FileStateStore(root: root)
    configuration = LAContextConfiguration(
      dependencies: Dependencies(
        clock: clock, store: store, sensor: SpoolSensor(modality: .touchID, runtimeRoot: root, clock: clock, log: log),
        prompter: prompter, log: log),
      settings: settings, user: "alice")
    let administration = Administration(store: store, clock: clock, settings: settings)
    simulator = BiometricSimulator(worldSeed: try WorldSeed.load(stateRoot: root))
    var rng = SplitMix64(seed: 7)
    let user = try UserName("alice")
    try administration.enroll(
      simulator.enroll(owner: "alice", item: "right-index", modality: .touchID, at: clock.now(), using: &rng), for: user)
    try administration.setPasscode(SecretBytes("1234"), for: user)
  }

  /// Presents alice's finger to her next prompt from another thread, as `localauthctl touch --wait 10 alice
  /// right-index` does.
  func touch() throws {
    var rng = SplitMix64(seed: 99)
    let identity = simulator.identity(owner: "alice", item: "right-index", modality: .touchID)
    let event = SensorEvent.sample(simulator.capture(identity, modality: .touchID, quality: 0.95, using: &rng))
    let admin = SensorAdministration(stateRoot: root, clock: clock)
    let user = try UserName("alice")
    DispatchQueue.global().async { _ = try? admin.present(event, for: user, wait: 10) }
  }

  func remove() { try? FileManager.default.removeItem(atPath: base) }
}

@Suite("Context over the file store and the spool sensor", .serialized)
struct SpoolSensorContextTests {
  @Test(
    "passcode first after setting it, then a queued touch authenticates through the spool",
    .enabled(if: geteuid() == 0, "the state folder must be root-owned"))
  func spoolRoundTrip() async throws {
    let world = try SpoolWorld()
    defer { world.remove() }
    world.prompter.enqueue("1234")
    let (first, firstError) = await evaluate(LAContext(configuration: world.configuration), .deviceOwnerAuthentication)
    #expect(first)
    #expect(firstError == nil)
    try world.touch()
    let context = LAContext(configuration: world.configuration)
    #expect(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil))
    let (success, error) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(success)
    #expect(error == nil)
    #expect(context.evaluatedPolicyDomainState != nil)
  }

  @Test(
    "invalidate() ends a real sensor wait promptly with appCancel",
    .enabled(if: geteuid() == 0, "the state folder must be root-owned"))
  func invalidateRealWait() async throws {
    let world = try SpoolWorld()
    defer { world.remove() }
    world.prompter.enqueue("1234")
    _ = await evaluate(LAContext(configuration: world.configuration), .deviceOwnerAuthentication)
    let context = LAContext(configuration: world.configuration)
    let started = Date()
    let (success, error): (Bool, (any Error)?) = await withCheckedContinuation { continuation in
      context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "wait") {
        continuation.resume(returning: ($0, $1))
      }
      context.invalidate()
    }
    #expect(!success)
    #expect(laCode(error) == .appCancel)
    // The sensor would otherwise wait its 120 s; under a loaded test run the evaluation's thread may start late (a
    // full `make test` on 2 cores once took 40 s), so the bound only tells "ended by invalidate" from "timed out".
    #expect(Date().timeIntervalSince(started) < 90)
  }
}
