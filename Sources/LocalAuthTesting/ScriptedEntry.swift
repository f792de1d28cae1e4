import LocalAuthCore

/// A parallel prompt whose typing is scripted: the race between the finger and the passcode without timing.
///
/// Each `next` call plays steps until one ends the wait: `.type` adds bytes and goes on, `.enter` finishes the line,
/// `.sensor` wakes the sensor, `.cancel` is Ctrl-C. With no step left the wait runs to its deadline on the clock.
public final class ScriptedEntry: ParallelEntry, @unchecked Sendable {
  /// One thing the person at the keyboard or the sensor does.
  public enum Step: Equatable, Sendable {
    /// Types these characters (no Enter).
    case type(String)
    /// Presses Enter.
    case enter
    /// The sensor's descriptor wakes.
    case sensor
    /// Presses Ctrl-C.
    case cancel
  }

  private let lock = Mutex()
  private let clock: AuthClock
  private var steps: [Step]
  private var line: [UInt8] = []
  /// The prompts shown, in order.
  public private(set) var prompts: [String] = []
  /// True once closed; `discarded` is what was typed and not entered when it closed.
  public private(set) var closed = false
  /// The bytes typed and never entered, as they were at `close()` (then wiped from the line).
  public private(set) var discarded = ""

  /// Creates an entry playing `steps` against `clock`.
  public init(clock: AuthClock, steps: [Step]) {
    self.clock = clock
    self.steps = steps
  }

  /// The steps not played yet.
  public var pending: [Step] { lock.withLock { steps } }

  /// Records the first prompt (the prompter calls this when it opens the entry).
  func show(_ prompt: String) { lock.withLock { prompts.append(prompt) } }

  public func next(waitingOn descriptor: Int32, until deadline: Double) throws(LocalAuthError) -> ParallelInput {
    while true {
      guard let step: Step = lock.withLock({ steps.isEmpty ? nil : steps.removeFirst() }) else {
        let wait = deadline - clock.uptime()
        if wait > 0 { clock.sleep(wait) }
        return .timedOut
      }
      switch step {
      case .type(let text): lock.withLock { line += Array(text.utf8) }
      case .enter:
        let typed = lock.withLock { () -> [UInt8] in
          defer { line = [] }
          return line
        }
        return .secret(SecretBytes(typed))
      case .sensor: return .sensorReady
      case .cancel: return .cancelled
      }
    }
  }

  public func reprompt(_ prompt: String) throws(LocalAuthError) { lock.withLock { prompts.append(prompt) } }

  public func close() {
    lock.withLock {
      guard !closed else { return }
      closed = true
      discarded = String(decoding: line, as: UTF8.self)
      line = []
    }
  }
}
