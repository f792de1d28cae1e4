/// The simulated sensor's queue: `<state>/sensor/<user>/` holds one root-owned file per event.
///
/// `localauthctl touch` writes events before or during a prompt; the module consumes the oldest one
/// that has not expired (default 30 s), so a stale touch never authenticates a later prompt.
/// Only root can write there: the folders are 0700 root and files with any other owner are refused.
public struct SensorQueue {
  /// The state folder the queue lives in.
  public let stateRoot: String

  /// Creates the queue of a state folder.
  public init(stateRoot: String) { self.stateRoot = stateRoot }

  /// A queued event: what happened and when it was queued.
  public struct Entry: Equatable {
    /// The event.
    public var event: SensorEvent
    /// When it was queued.
    public var created: WallTime
  }

  /// The folder for `user`'s events.
  public func directory(for user: UserName) -> String { stateRoot + "/sensor/" + user.value }

  /// Queues an event for `user`'s next prompt.
  public func enqueue(_ event: SensorEvent, for user: UserName, at time: WallTime, sequence: UInt64) throws {
    try FileSyscalls.ensureDirectory(stateRoot)
    try FileSyscalls.ensureDirectory(stateRoot + "/sensor")
    try FileSyscalls.ensureDirectory(directory(for: user))
    let name = String(Int64(time.seconds * 1_000_000), radix: 10).leftPadded(to: 20) + "-" + String(sequence, radix: 16) + ".event"
    try FileSyscalls.atomicWrite(Self.encode(Entry(event: event, created: time)), directory: directory(for: user), name: name)
  }

  /// The pending event files for `user`, oldest first.
  public func pending(for user: UserName) throws -> [String] {
    try FileSyscalls.listDirectory(directory(for: user)).filter { $0.hasSuffix(".event") && !$0.hasPrefix(".") }.sorted()
  }

  /// Removes and returns the oldest unexpired event, deleting expired ones; nil when none is queued.
  public func take(for user: UserName, now: WallTime, expiry: Double, log: AuthLog) throws -> SensorEvent? {
    let folder = directory(for: user)
    for name in try pending(for: user) {
      let path = folder + "/" + name
      let entry: Entry
      do {
        guard let bytes = try FileSyscalls.readTrustedFile(path, limit: 16 * 1024) else { continue }
        entry = try Self.decode(bytes, path: path)
      } catch {
        log.log(.warning, "Discarded sensor event \(path): \(error).")
        try? FileSyscalls.remove(path)
        continue
      }
      try FileSyscalls.remove(path)
      let age = now.since(entry.created)
      if age > expiry {
        log.log(.notice, "Discarded a sensor event for \(user) queued \(wholeSeconds(age)) seconds ago (expired).")
        continue
      }
      // Stamped further ahead than it may live (the clock was set back since): it would never expire.
      if age < -expiry {
        log.log(.notice, "Discarded a sensor event for \(user) stamped \(wholeSeconds(-age)) seconds ahead of the clock (expired).")
        continue
      }
      return entry.event
    }
    return nil
  }

  /// Removes every queued event for `user`.
  public func clear(for user: UserName) throws {
    for name in try pending(for: user) { try FileSyscalls.remove(directory(for: user) + "/" + name) }
  }

  static func encode(_ entry: Entry) -> [UInt8] {
    var lines = ["localauth-event 1", "created \(entry.created)"]
    switch entry.event {
    case .cancel: lines.append("kind cancel")
    case .fallback: lines.append("kind fallback")
    case .timeout: lines.append("kind timeout")
    case .sample(let s):
      lines += ["kind sample", "modality \(s.modality.rawValue)", "quality \(s.quality)",
        "features " + FloatVectorText.encode(s.features)]
    }
    return Array((lines.joined(separator: "\n") + "\n").utf8)
  }

  static func decode(_ bytes: [UInt8], path: String) throws(StateError) -> Entry {
    guard let text = String(validating: bytes, as: UTF8.self) else { throw .corrupt(path: path, reason: "not UTF-8") }
    var fields: [String: String] = [:]
    let lines = text.fields(separatedBy: UInt8(ascii: "\n")).filter { !$0.isEmpty }
    guard lines.first == "localauth-event 1" else { throw .corrupt(path: path, reason: "bad header") }
    for line in lines.dropFirst() {
      guard let space = line.firstIndex(ofByte: UInt8(ascii: " ")) else { throw .corrupt(path: path, reason: "bad line") }
      fields[String(line[..<space])] = String(line[line.index(after: space)...])
    }
    guard let created = fields["created"].flatMap(Double.init), created.isFinite else {
      throw .corrupt(path: path, reason: "bad time")
    }
    let event: SensorEvent
    switch fields["kind"] {
    case "cancel": event = .cancel
    case "fallback": event = .fallback
    case "timeout": event = .timeout
    case "sample":
      guard let modality = fields["modality"].flatMap(Modality.init(rawValue:)),
        let quality = fields["quality"].flatMap(Double.init), quality.isFinite,
        let raw = fields["features"]
      else { throw .corrupt(path: path, reason: "bad sample") }
      guard let features = FloatVectorText.decode(raw, dimension: MatcherCalibration.dimension),
        features.allSatisfy(\.isFinite)
      else {
        throw .corrupt(path: path, reason: "bad features")
      }
      event = .sample(BiometricSample(modality: modality, quality: quality, features: features))
    default: throw .corrupt(path: path, reason: "unknown kind")
    }
    return Entry(event: event, created: WallTime(seconds: created))
  }
}

/// The sensor the module uses by default: it waits on the state folder's queue, polling every 50 ms.
public final class SpoolSensor: BiometricSensor {
  /// The modality it reports, or nil for no sensor.
  public let modality: Modality?
  private let queue: SensorQueue
  private let clock: AuthClock
  private let log: AuthLog
  private let expiry: Double

  /// Creates a sensor of `modality` over the queue in `stateRoot`; events older than `expiry` seconds are dropped.
  public init(modality: Modality?, stateRoot: String, clock: AuthClock, log: AuthLog, expiry: Double = 30) {
    self.modality = modality
    self.queue = SensorQueue(stateRoot: stateRoot)
    self.clock = clock
    self.log = log
    self.expiry = expiry
  }

  public func nextEvent(for user: UserName, deadline: WallTime) throws -> SensorEvent {
    try nextEvent(for: user, deadline: deadline, cancellation: nil)
  }

  /// Polls the queue every 50 ms until an event, the deadline, or the caller's cancellation.
  public func nextEvent(for user: UserName, deadline: WallTime, cancellation: CancellationFlag?) throws -> SensorEvent {
    while true {
      if cancellation?.isCancelled == true { return .timeout }
      if let event = try queue.take(for: user, now: clock.now(), expiry: expiry, log: log) { return event }
      let left = deadline.since(clock.now())
      if left <= 0 { return .timeout }
      clock.sleep(min(0.05, left))
    }
  }
}

extension String {
  func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
