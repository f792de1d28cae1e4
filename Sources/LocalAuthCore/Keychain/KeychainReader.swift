/// Reads keychain items the way SecItemCopyMatching does: runs the evaluations an item's access control needs
/// (skipping what the authorization already holds, as a reused LAContext does), then opens the item.
public struct KeychainReader {
  /// The keychain.
  package let keychain: Keychain
  /// The clock, store, sensor, prompter and log the evaluations use.
  package let dependencies: Dependencies
  /// The evaluation rules.
  package let settings: EvaluationSettings

  /// A reader over `keychain`, evaluating with `dependencies`.
  public init(keychain: Keychain, dependencies: Dependencies, settings: EvaluationSettings) {
    self.keychain = keychain
    self.dependencies = dependencies
    self.settings = settings
  }

  /// One evaluation an item needs.
  public enum Step: Equatable, Sendable {
    /// Biometry first, then the passcode (userPresence, or biometry `.or` passcode).
    case ownerAuthentication
    /// Biometry only.
    case biometry
    /// The passcode only.
    case passcode
  }

  /// The evaluations `item` needs beyond `authorization`, in order; `notAvailable` when a constraint can never
  /// be satisfied here (a companion watch).
  package func steps(
    for item: KeychainItem, authorization: KeychainAuthorization, currentDomainState: String?
  ) throws(KeychainError) -> [Step] {
    guard let flags = item.flags else { return [] }
    let (constraints, anyOne) = flags.requirement
    let open = constraints.filter { !$0.isSatisfied(by: authorization, storedDomainState: item.domainState) }
    if constraints.isEmpty || open.count < constraints.count && anyOne { return [] }
    // A biometryCurrentSet constraint whose set changed can only be met by another branch of an `.or`.
    let usable = open.filter { constraint in
      if case .biometry(true) = constraint { return item.domainState == currentDomainState }
      return constraint != .companion
    }
    if anyOne {
      let biometry = usable.contains { if case .biometry = $0 { true } else { false } }
      if usable.contains(.ownerAuthentication) || (biometry && usable.contains(.passcode)) { return [.ownerAuthentication] }
      if biometry { return [.biometry] }
      if usable.contains(.passcode) { return [.passcode] }
      throw .notAvailable("no constraint of the item's access control can be satisfied on this system")
    }
    guard usable.count == open.count else {
      throw .notAvailable("the item's access control needs a companion device, which this system does not have")
    }
    return open.map { constraint -> Step in
      switch constraint {
      case .ownerAuthentication: .ownerAuthentication
      case .biometry: .biometry
      case .passcode, .companion: .passcode
      }
    }
  }

  /// Runs one step for `request`'s user and records what it established in `authorization`; throws the
  /// keychain error of a failed evaluation.
  package func run(
    _ step: Step, request template: EvaluationRequest, into authorization: inout KeychainAuthorization
  ) throws(LocalAuthError) {
    var request = template
    let capture = PasscodeCapture()
    request.passcodeCapture = capture
    switch step {
    case .ownerAuthentication: request.policy = .deviceOwnerAuthentication
    case .biometry: request.policy = .deviceOwnerAuthenticationWithBiometrics
    case .passcode:
      // A remote request is the evaluator's passcode-only path: no sensor, no reuse window.
      request.policy = .deviceOwnerAuthentication
      request.remote = true
      request.reuseDuration = 0
    }
    let outcome = try PolicyEvaluator(dependencies: dependencies, settings: settings).evaluate(request)
    switch outcome {
    case .success(.passcode):
      authorization.passcode = capture.secret.map { SecretBytes($0.bytes) }
      authorization.passcodeAccepted = true
    case .success:
      authorization.biometry = true
      authorization.domainState = try dependencies.store.load(request.user)?.domainState
    case .failure(let code, _):
      throw .keychain(KeychainError(failure: code))
    }
  }

  /// Reads `item`'s data for `request`'s user: deletes it and reports `itemNotFound` when an enrolment change
  /// invalidated it, runs the missing steps (or `interactionNotAllowed` when the request allows no UI), then
  /// opens it.
  package func read(
    _ item: KeychainItem, request: EvaluationRequest, authorization: inout KeychainAuthorization
  ) throws(LocalAuthError) -> [UInt8] {
    let user = request.user
    let record = try dependencies.store.load(user)
    if keychain.isInvalidated(item, currentDomainState: record?.domainState) {
      dependencies.log.log(
        .notice, "Keychain item \(item.id) of user \(user) was deleted: the enrolled set changed since it was added (biometryCurrentSet).")
      do { try keychain.delete(for: user) { $0.id == item.id } } catch { throw .keychain(error) }
      throw .keychain(.itemNotFound)
    }
    let needed: [Step]
    do { needed = try steps(for: item, authorization: authorization, currentDomainState: record?.domainState) } catch {
      throw .keychain(error)
    }
    if !needed.isEmpty && !request.interactionAllowed { throw .keychain(.interactionNotAllowed) }
    for step in needed { try run(step, request: request, into: &authorization) }
    let fresh = try dependencies.store.load(user)
    // The desktop is asked only when its answer matters: an AfterFirstUnlock item reads the same locked or not.
    let screenLocked = item.accessibility.readableWhileLocked ? nil : dependencies.screenLocked?(user)
    let lock = DeviceLock.of(fresh, bootID: dependencies.clock.bootID(), screenLocked: screenLocked)
    let held = authorization
    let open = { () throws(KeychainError) -> [UInt8] in
      try keychain.open(item, for: user, authorization: held, lock: lock, hasher: settings.hasher)
    }
    // An application password given is a guess, counted and delayed as passcode guesses are (rule 5).
    if item.flags?.contains(.applicationPassword) == true && authorization.applicationPassword != nil {
      return try ApplicationPasswordCheck(dependencies: dependencies, settings: settings, user: user).guess(item: item.id, open)
    }
    do { return try open() } catch { throw .keychain(error) }
  }
}
