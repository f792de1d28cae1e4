import Glibc
import LocalAuthCore
import LocalAuthTesting

/// The failure a test double injects on purpose: a sensor read that fails.
let injectedSensorFault = LocalAuthError.state(.io(path: "simulated sensor", operation: "read", errno: EIO))

/// A sensor whose every wait fails.
final class ThrowingSensor: BiometricSensor {
  let modality: Modality? = .touchID
  func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent { throw injectedSensorFault }
}

/// A prompter that fails in one chosen way and otherwise answers `answer`.
final class FaultyPrompter: AuthPrompter {
  /// The ways to fail.
  enum Fault: String, CaseIterable, Sendable {
    case infoThrows, errorThrows, secretFails, secretAgain
  }

  let fault: Fault?
  let answer: [UInt8]

  init(fault: Fault? = nil, answer: [UInt8]) {
    self.fault = fault
    self.answer = answer
  }

  func info(_ text: String) throws(LocalAuthError) { if fault == .infoThrows { throw .prompt(.conversationFailed) } }
  func error(_ text: String) throws(LocalAuthError) { if fault == .errorThrows { throw .prompt(.conversationFailed) } }
  func secret(_ prompt: String) throws(LocalAuthError) -> SecretBytes {
    if fault == .secretFails { throw .prompt(.conversationFailed) }
    if fault == .secretAgain { throw .prompt(.conversationAgain) }
    return SecretBytes(answer)
  }
}

/// A clock stuck at one reading, as a failed clock_gettime (epoch) or an unreadable boot id would leave it.
final class StuckClock: AuthClock, @unchecked Sendable {
  let time: WallTime
  let boot: String

  init(_ time: WallTime, boot: String) {
    self.time = time
    self.boot = boot
  }

  func now() -> WallTime { time }
  func bootID() -> String { boot }
  func sleep(_ seconds: Double) {}
}

/// Counts yescrypt computations made on the calling thread (other suites hash in parallel on other threads).
final class HashWork: @unchecked Sendable {
  static let shared = HashWork()
  private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private var byThread: [UInt: [String]] = [:]

  private init() {
    pthread_mutex_init(lock, nil)
    passcodeHashProbe = { parameters in HashWork.shared.record(parameters) }
  }

  private func record(_ parameters: String) {
    pthread_mutex_lock(lock)
    byThread[UInt(pthread_self()), default: []].append(parameters)
    pthread_mutex_unlock(lock)
  }

  /// Runs `body` and returns the yescrypt parameters of every computation it made.
  func measure<T>(_ body: () throws -> T) rethrows -> (T, [String]) {
    let me = UInt(pthread_self())
    pthread_mutex_lock(lock)
    byThread[me] = []
    pthread_mutex_unlock(lock)
    let result = try body()
    pthread_mutex_lock(lock)
    let work = byThread.removeValue(forKey: me) ?? []
    pthread_mutex_unlock(lock)
    return (result, work)
  }
}

/// A user with a passcode and an enrolled finger, who entered the passcode in this boot: every path is open.
struct PrimedWorld {
  static let passcode = "1234"
  static let item = "right-index"

  let clock = ManualClock()
  let store: StateStore
  let user: UserName
  var settings = EvaluationSettings()
  let simulator = BiometricSimulator(worldSeed: 0x5EED)

  init(store: StateStore, user: String = "alice") throws {
    self.store = store
    self.user = try UserName(user)
    settings.hasher = PasscodeHasher(cost: 1)
    var rng = SplitMix64(seed: 11)
    let admin = Administration(store: store, clock: clock, settings: settings)
    try admin.setPasscode(SecretBytes(Self.passcode), for: self.user)
    try admin.enroll(
      simulator.enroll(owner: user, item: Self.item, modality: .touchID, at: clock.now(), using: &rng), for: self.user)
    let outcome = try evaluator(sensor: AbsentSensor(), prompter: ScriptedPrompter(answers: [Self.passcode]))
      .evaluate(request(.deviceOwnerAuthentication))
    precondition(outcome == .success(.passcode), "priming failed: \(outcome)")
  }

  /// A capture of the enrolled finger.
  func genuine(seed: UInt64 = 3) -> SensorEvent {
    var rng = SplitMix64(seed: seed)
    let identity = simulator.identity(owner: user.value, item: Self.item, modality: .touchID)
    return .sample(simulator.capture(identity, modality: .touchID, quality: 0.9, using: &rng))
  }

  /// A capture of someone else's finger.
  func impostor(seed: UInt64 = 5) -> SensorEvent {
    var rng = SplitMix64(seed: seed)
    let identity = simulator.identity(owner: "mallory", item: "left-thumb", modality: .touchID)
    return .sample(simulator.capture(identity, modality: .touchID, quality: 0.9, using: &rng))
  }

  func evaluator(
    sensor: BiometricSensor, prompter: AuthPrompter, clock other: AuthClock? = nil, log: AuthLog = NullLog()
  ) -> PolicyEvaluator {
    PolicyEvaluator(
      dependencies: Dependencies(clock: other ?? clock, store: store, sensor: sensor, prompter: prompter, log: log),
      settings: settings)
  }

  func request(_ policy: AuthPolicy, reuse: Double = 0) -> EvaluationRequest {
    EvaluationRequest(user: user, policy: policy, reason: "test fail-closed behaviour", reuseDuration: reuse)
  }
}

/// The StateError inside `error`, whether thrown bare (FileSyscalls, StateCodec) or wrapped by the store and the
/// evaluator as `LocalAuthError.state`; nil for anything else.
func stateError(_ error: any Error) -> StateError? {
  if let bare = error as? StateError { return bare }
  if case .state(let wrapped)? = error as? LocalAuthError { return wrapped }
  return nil
}
