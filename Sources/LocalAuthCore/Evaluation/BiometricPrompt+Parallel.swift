/// A passcode typed in a parallel prompt, carried in a prompt's result (compared by identity, never by content).
struct TypedPasscode: Equatable {
  let secret: SecretBytes
  init(_ secret: SecretBytes) { self.secret = secret }
  static func == (lhs: TypedPasscode, rhs: TypedPasscode) -> Bool { lhs.secret === rhs.secret }
}

/// What the wait of a biometric prompt gave: the sensor's event, or with a parallel prompt a typed line or Cancel.
enum PromptWait {
  case event(SensorEvent)
  case typed(SecretBytes)
  case cancelled
  case withdrawn(PromptWithdrawal)
}

extension BiometricPrompt {
  /// The prompt's line for a parallel prompt: the finger (or face) or the passcode, whichever comes first.
  static func parallelPrompt(_ modality: Modality, passcode: PasscodeSource) -> String {
    let secret = passcode == .account ? "password" : "passcode"
    return modality == .touchID
      ? "Place your finger or enter your \(secret): " : "Look at the camera or enter your \(secret): "
  }

  /// The sensor's next event until `deadline`; with a parallel prompt, also a non-empty line typed meanwhile or
  /// Cancel.
  ///
  /// The entry waits on the sensor's wake descriptor (the simulated sensor's doorbell) and the typing together;
  /// a sensor without one (fprintd) is asked in slices of 50 ms between slices of 100 ms of typing, the typed
  /// bytes staying in the terminal meanwhile. Every slice is bounded by `deadline`, and a cancellation is seen
  /// within a slice.
  func nextEventOrTyping(until deadline: WallTime) throws(LocalAuthError) -> PromptWait {
    let sensor = dependencies.sensor
    let user = request.user
    guard let entry else {
      guard let watch else {
        return .event(try sensor.nextEvent(for: user, deadline: deadline, cancellation: request.cancellation))
      }
      return try watchedEvent(until: deadline, watch)
    }
    let clock = dependencies.clock
    let wake = sensor.wakeDescriptor(for: user)
    while true {
      if request.cancellation?.isCancelled == true { return .event(.timeout) }
      if let withdrawal = watch?.inWait() { return .withdrawn(withdrawal) }
      let now = clock.uptime()
      guard now < deadline.seconds else { return .event(.timeout) }
      let slice = min(deadline.seconds, now + (wake >= 0 ? 0.25 : 0.1))
      switch try entry.next(waitingOn: wake, until: slice) {
      // Enter on an empty line is not a passcode: the finger keeps waiting (the passcode prompt's own empty
      // entry, after the finger's step, still fails uncounted as rule 5 says).
      case .secret(let secret) where secret.isEmpty: continue
      case .secret(let secret): return .typed(secret)
      case .cancelled: return .cancelled
      case .sensorReady, .timedOut:
        let ask = WallTime(seconds: min(deadline.seconds, clock.uptime() + (wake >= 0 ? 0 : 0.05)))
        let event = try sensor.nextEvent(for: user, deadline: ask, cancellation: request.cancellation)
        if event != .timeout { return .event(event) }
      }
    }
  }

  /// The sensor's next event until `deadline`, asked in slices of a quarter second between which `watch` is
  /// checked (the conflict mark, the request's visibility).
  private func watchedEvent(until deadline: WallTime, _ watch: PromptWatch) throws(LocalAuthError) -> PromptWait {
    let clock = dependencies.clock
    while true {
      if let withdrawal = watch.inWait() { return .withdrawn(withdrawal) }
      let sliceEnd = min(deadline.seconds, clock.uptime() + 0.25)
      let event = try dependencies.sensor.nextEvent(
        for: request.user, deadline: WallTime(seconds: sliceEnd), cancellation: request.cancellation)
      if event != .timeout { return .event(event) }
      // A sensor that returned before its slice ended did not wait (a cancellation): its answer stands.
      let now = clock.uptime()
      if now >= deadline.seconds || now < sliceEnd { return .event(.timeout) }
    }
  }
}
