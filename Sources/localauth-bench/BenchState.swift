import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// One state folder for the bench user: enrolled items, a passcode, and in-process touches for its prompts.
final class BenchState {
  /// The folder (root-owned, 0700).
  let root: String
  /// The runtime folder of its prompts (`runtime_dir=`): tmpfs when given, as /run/localauth is once installed.
  let runtime: String
  /// The user the folder serves.
  let user: UserName
  /// The modality enrolled.
  let modality: Modality
  /// The enrolled items' names, in enrolment order.
  let items: [String]
  private let simulator: BiometricSimulator
  private var deliverer: TouchDeliverer?
  private let clock = SystemClock()
  private var rng = SplitMix64(seed: 0x5EED_BE7C)

  /// Creates the folder, enrolls `items` and sets `passcode` with the hash `cost`; prompts wait in `runtime`
  /// (default: the state folder).
  init(root: String, runtime: String? = nil, user: String, modality: Modality, items: [String], passcode: String, cost: UInt) throws {
    guard mkdir(root, 0o700) == 0 else { throw SetupError("Cannot create the state folder \(root).") }
    self.root = root
    self.runtime = runtime ?? root
    self.user = try UserName(user)
    self.modality = modality
    self.items = items
    simulator = BiometricSimulator(worldSeed: try WorldSeed.load(stateRoot: root))
    var settings = EvaluationSettings()
    settings.hasher = PasscodeHasher(cost: cost)
    let admin = Administration(store: FileStateStore(root: root), clock: clock, settings: settings)
    for item in items {
      let template = simulator.enroll(owner: user, item: item, modality: modality, at: clock.now(), using: &rng)
      try admin.enroll(template, for: self.user)
    }
    try admin.setPasscode(SecretBytes(passcode), for: self.user)
  }

  /// The module arguments naming both folders.
  var folderArguments: String { "state_dir=\(root) runtime_dir=\(runtime)" }

  /// The user's stored passcode hash.
  func passcodeHash() -> String {
    (try? FileStateStore(root: root).load(user))??.passcodeHash ?? ""
  }

  /// Presents a good capture of enrolled item `item` (default: the last enrolled, the matcher's worst case) to
  /// the next prompt for the user, from a thread that waits for that prompt, as `localauthctl touch --wait` does.
  func enqueueTouch(item: String? = nil, quality: Double = 0.9) throws {
    clearQueue()
    let name = item ?? items[items.count - 1]
    let identity = simulator.identity(owner: user.value, item: name, modality: modality)
    let sample = simulator.capture(identity, modality: modality, quality: quality, using: &rng)
    deliverer = try TouchDeliverer(
      admin: SensorAdministration(stateRoot: root, runtimeRoot: runtime, clock: clock), event: .sample(sample), user: user)
  }

  /// Waits for the last touch's thread to end (it gives up 5 s after its prompt failed to appear).
  func clearQueue() {
    deliverer?.join()
    deliverer = nil
  }

  /// Writes `count` other users' records straight into users/ (StateCodec, no fsync): a crowded folder, quickly.
  func populateOthers(_ count: Int) throws {
    guard count > 0 else { return }
    let mine = try FileStateStore(root: root).load(user) ?? UserRecord()
    var record = UserRecord()
    record.passcodeHash = mine.passcodeHash
    record.lastPasscodeSuccess = clock.now()
    record.lastPasscodeBootID = clock.bootID()
    record.domainState = mine.domainState
    record.acknowledgedDomainState = mine.domainState
    let folder = root + "/users/"
    for i in 0..<count {
      let name = "other\(i)"
      record.templates = [simulator.enroll(owner: name, item: "right-index", modality: modality, at: clock.now(), captures: 1, using: &rng)]
      let bytes = StateCodec.encode(record)
      let fd = open(folder + name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
      guard fd >= 0 else { throw SetupError("Cannot write \(folder + name): \(errnoDescription(errno)).") }
      let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      close(fd)
      guard written == bytes.count else { throw SetupError("Short write to \(folder + name).") }
    }
  }
}

/// A thread that presents one event to the next prompt for a user.
final class TouchDeliverer {
  private let admin: SensorAdministration
  private let event: SensorEvent
  private let user: UserName
  private var thread = pthread_t()

  init(admin: SensorAdministration, event: SensorEvent, user: UserName) throws {
    self.admin = admin
    self.event = event
    self.user = user
    let box = Unmanaged.passRetained(self)
    guard pthread_create(&thread, nil, { raw in
      let deliverer = Unmanaged<TouchDeliverer>.fromOpaque(raw!).takeRetainedValue()
      _ = try? deliverer.admin.present(deliverer.event, for: deliverer.user, wait: 5, readLimit: 5)
      return nil
    }, box.toOpaque()) == 0 else {
      box.release()
      throw SetupError("Cannot start the touch thread.")
    }
  }

  /// Waits for the thread to end.
  func join() { pthread_join(thread, nil) }
}
