/// A real fingerprint reader through fprintd (`sensor=fprintd`): any reader libfprint supports, under Apple's
/// rules. fprintd matches; each of its results goes through the same BiometricPrompt rules as the simulated
/// sensor's captures (docs/RULES.md, "Real readers through fprintd").
///
/// The prompt claims the default device for the user, starts a verification against every enrolled finger, and
/// reads VerifyStatus signals: a match, a no-match (counted), a retry result (not counted) or a failure of the
/// reader (biometry not available). fprintd ends a verification after each no-match and each retry result, so the
/// next scan starts a new one. The prints fprintd keeps (root's, under /var/lib/fprint) give the domain state.
public final class FprintdSensor: BiometricSensor, @unchecked Sendable {
  /// Where fprintd keeps prints, one folder per user.
  package let printsFolder: String
  private let log: AuthLog
  private let callTimeout: Double
  private let lock = Mutex()
  private var connection: Result<(client: FprintdClient, device: String), FprintdError>?
  private var prompt: (user: UserName, lastFinger: String?, restart: Bool)?
  private var listed: (user: UserName, fingers: [String])?
  private var refused: (user: UserName, failure: PromptStartFailure)?

  /// A sensor over fprintd; every D-Bus call waits at most `callTimeout` seconds.
  public init(printsFolder: String = "/var/lib/fprint", log: AuthLog, callTimeout: Double = 5) {
    self.printsFolder = printsFolder
    self.log = log
    self.callTimeout = callTimeout
  }

  /// fprintd's default device, connecting on first use; the failure is logged once.
  private func device() -> Result<(client: FprintdClient, device: String), FprintdError> {
    lock.withLock {
      if let connection { return connection }
      let made: Result<(client: FprintdClient, device: String), FprintdError>
      do throws(FprintdError) {
        let client = try FprintdClient.connect(timeout: callTimeout)
        made = .success((client, try client.defaultDevice()))
      } catch {
        made = .failure(error)
        log.log(.error, "The fingerprint reader is not available through fprintd (\(error)): biometry is not offered.")
      }
      connection = made
      return made
    }
  }

  /// Touch ID when fprintd answers with a device; nil (biometryNotAvailable) when it does not.
  public var modality: Modality? {
    if case .success = device() { return .touchID }
    return nil
  }

  /// What `localauthctl status` and `list` show: the reader's name, its scan type ("press" or "swipe") and the
  /// user's enrolled fingers; the failure when fprintd cannot be asked.
  package func describe(for user: UserName) -> Result<(name: String, scanType: String, fingers: [String]), FprintdError> {
    switch device() {
    case .failure(let error): return .failure(error)
    case .success(let reader):
      do throws(FprintdError) {
        let fingers = try reader.client.enrolledFingers(device: reader.device, user: user.value)
        return .success((
          reader.client.deviceProperty(reader.device, "name") ?? "unknown", reader.client.deviceProperty(reader.device, "scan-type") ?? "press",
          fingers
        ))
      } catch {
        return .failure(error)
      }
    }
  }

  public func readerEnrollment(for user: UserName) -> ReaderEnrollment? {
    guard case .success(let reader) = device() else { return nil }
    do {
      let fingers = try reader.client.enrolledFingers(device: reader.device, user: user.value)
      lock.withLock { listed = (user, fingers) }
      return ReaderEnrollment(items: fingers, domainState: PrintsDigest.of(folder: printsFolder + "/" + user.value))
    } catch {
      log.log(.error, "fprintd could not list the enrolled fingers of user \(user): \(error).")
      return nil
    }
  }

  public func instruction(for user: UserName) -> String? {
    guard case .success(let reader) = device() else { return nil }
    let name = reader.client.deviceProperty(reader.device, "name").map { RequestOrigin.token($0).replacingSpaces() }
    let place = name.map { " the \($0) reader" } ?? " the reader"
    // With one finger enrolled the prompt names it, as fprintd's own clients do: "your right index finger".
    let fingers = lock.withLock { listed?.user == user ? listed?.fingers : nil } ?? []
    let finger = fingers.count == 1 ? Self.spoken(fingers[0]) : "finger"
    if reader.client.deviceProperty(reader.device, "scan-type") == "swipe" { return "Swipe your \(finger) across" + place }
    return "Place your \(finger) on" + place
  }

  /// "right-index-finger" as "right index finger"; anything unexpected as "finger".
  static func spoken(_ name: String) -> String {
    let words = name.split(separator: "-")
    guard !words.isEmpty, words.allSatisfy({ $0.utf8.allSatisfy { $0 >= 0x61 && $0 <= 0x7a } }) else { return "finger" }
    return words.joined(separator: " ") + (words.last == "finger" || words.last == "thumb" ? "" : " finger")
  }

  public func openPrompt(for user: UserName, origin: RequestOrigin) throws(LocalAuthError) {
    lock.withLock { refused = nil }
    guard case .success(let reader) = device() else { return }
    do throws(FprintdError) {
      do throws(FprintdError) {
        try reader.client.claim(reader.device, user: user.value)
      } catch {
        // Another request holds the reader (docs/RULES.md, "One finger request at a time"): no instruction is
        // shown, and the prompt falls back at once naming it when the registry knows it.
        if case .call(_, let name, _) = error, name.hasSuffix(".AlreadyInUse") {
          log.log(.notice, "The fingerprint reader is claimed by another request: no finger is asked of user \(user).")
          lock.withLock { refused = (user, .readerInUse) }
          return
        }
        throw error
      }
      try reader.client.subscribe(reader.device)
      try reader.client.verifyStart(reader.device)
      lock.withLock { prompt = (user, nil, false) }
    } catch {
      // The prompt then reports the reader as lost: the passcode under policy 2, with this line saying why.
      log.log(.error, "fprintd could not start a verification for user \(user): \(error).")
      _ = try? reader.client.release(reader.device)
      lock.withLock {
        prompt = nil
        refused = (user, .failed("\(error)"))
      }
    }
  }

  public func startFailure(for user: UserName) -> PromptStartFailure? {
    lock.withLock { refused?.user == user ? refused?.failure : nil }
  }

  public func closePrompt(for user: UserName) {
    guard case .success(let reader) = device(), lock.withLock({ prompt?.user == user }) else { return }
    lock.withLock { prompt = nil }
    _ = try? reader.client.verifyStop(reader.device)
    _ = try? reader.client.release(reader.device)
  }

  public func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent {
    try nextEvent(for: user, deadline: deadline, cancellation: nil)
  }

  public func nextEvent(
    for user: UserName, deadline: WallTime, cancellation: CancellationFlag?
  ) throws(LocalAuthError) -> SensorEvent {
    guard case .success(let reader) = device() else { return .reader(.lost("fprintd is not available")) }
    guard lock.withLock({ prompt?.user == user }) else { return .reader(.lost("the verification could not start")) }
    do {
      if lock.withLock({ prompt?.restart == true }) {
        // fprintd ends a verification after each result that is done: stop it, drop the no-match that stopping
        // reports, and start the next one.
        _ = try? reader.client.verifyStop(reader.device)
        reader.client.discardPending()
        try reader.client.verifyStart(reader.device)
        lock.withLock { prompt?.restart = false }
      }
      while true {
        if cancellation?.isCancelled == true { return .timeout }
        let left = deadline.seconds - SystemClock().uptime()
        if left <= 0 { return .timeout }
        // Slices bound how late a cancellation is seen.
        guard let signal = try reader.client.nextSignal(from: reader.device, within: min(left, 0.25)) else { continue }
        switch signal {
        case .fingerSelected(let finger):
          lock.withLock { prompt?.lastFinger = finger }
        case .verifyStatus(let result, let done):
          if done { lock.withLock { prompt?.restart = true } }
          if let event = Self.event(result, finger: lock.withLock { prompt?.lastFinger }) { return event }
        }
      }
    } catch {
      return .reader(.lost("\(error)"))
    }
  }

  /// The event for a VerifyStatus result; nil for results that are not a scan's outcome.
  static func event(_ result: String, finger: String?) -> SensorEvent? {
    switch result {
    case "verify-match": .reader(.match(item: finger.flatMap { $0 == "any" ? nil : $0 } ?? "finger"))
    case "verify-no-match": .reader(.noMatch)
    case "verify-retry-scan": .reader(.retry("Place your finger on the reader again."))
    case "verify-swipe-too-short": .reader(.retry("Swipe too short; try again."))
    case "verify-finger-not-centered": .reader(.retry("Center your finger on the reader and try again."))
    case "verify-remove-and-retry": .reader(.retry("Remove your finger and try again."))
    case "verify-disconnected": .reader(.lost("the reader was disconnected"))
    case "verify-unknown-error": .reader(.lost("the reader reported an unknown error"))
    default: .reader(.lost("fprintd reported \(RequestOrigin.token(result))"))
    }
  }
}

extension String {
  /// The text with "?" (what `RequestOrigin.token` makes of a space) shown as a space again.
  func replacingSpaces() -> String { String(decoding: utf8.map { $0 == UInt8(ascii: "?") ? UInt8(ascii: " ") : $0 }, as: UTF8.self) }
}
