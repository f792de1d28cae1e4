#if canImport(Glibc)
import Glibc
#endif
@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// Rule 7 of docs/RULES.md, issue 27 findings 1–3: a match serves the purpose it was made for. sudo's match serves
/// sudo, an app's match serves nothing else, apps reuse only a session unlock of their own login session, the
/// administrator's `reuse_duration` caps every window, and a hidden request never reuses.
@Suite("Rule 7: a match serves the purpose it was made for")
struct Rule7ReusePurposeTests {
  /// alice's sudo on pts/1 of login session 4.
  static let sudo = RequestOrigin(
    service: "sudo", tty: "/dev/pts/1", requesterUID: 1000, requesterName: "alice", loginSession: "4",
    sessionLeader: "812@5000")
  /// An app of alice's, in the foreground of the same terminal.
  static let app = RequestOrigin(
    service: "notes", tty: "/dev/pts/1", requesterUID: 1000, requesterName: "alice", loginSession: "4",
    sessionLeader: "812@5000")
  static let appPurpose = ReusePurpose.app("/home/alice/bin/notes")
  /// alice's screen locker in login session 4 (no terminal).
  static let locker = RequestOrigin(
    service: "swaylock", requesterUID: 1000, requesterName: "alice", loginSession: "4", sessionLeader: "700@100")

  func request(
    _ world: TestWorld, _ origin: RequestOrigin, _ purpose: ReusePurpose, policy: AuthPolicy = .deviceOwnerAuthenticationWithBiometrics,
    reuse: Double = 0, interactionAllowed: Bool = true
  ) -> EvaluationRequest {
    var request = world.request(policy, reuse: reuse, interactionAllowed: interactionAllowed)
    request.origin = origin
    request.purpose = purpose
    return request
  }

  /// A primed world (reuse_duration `limit`) whose user just matched a finger for `purpose` from `origin`.
  func matched(_ origin: RequestOrigin, _ purpose: ReusePurpose, limit: Double = 300) throws -> TestWorld {
    let world = try TestWorld()
    world.settings.reuseLimit = limit
    try world.prime()
    world.present(world.genuine())
    #expect(try world.evaluator.evaluate(request(world, origin, purpose)) == .success(.biometry))
    #expect(try world.record().reuseStamp(for: purpose) != nil)
    return world
  }

  /// Asserts a fresh scan is needed: with nothing queued, the sensor waits out its timeout (systemCancel).
  func expectScanNeeded(_ world: TestWorld, _ request: EvaluationRequest) throws {
    let start = world.clock.now()
    #expect(try world.evaluator.evaluate(request) == .failure(.systemCancel, .none))
    #expect(world.clock.now().since(start) == world.settings.sensorTimeout)
  }

  @Test("Rule 7: sudo's match is not reused by an app, even with the app's reuse 300 and interactionNotAllowed")
  func sudoNotReusedByApp() throws {
    let world = try matched(Self.sudo, .service("sudo"))
    world.clock.advance(by: 5)
    for policy in AuthPolicy.allCases {
      let request = request(world, Self.app, Self.appPurpose, policy: policy, reuse: 300, interactionAllowed: false)
      #expect(try world.evaluator.evaluate(request) == .failure(.notInteractive, .none))
    }
    try expectScanNeeded(world, request(world, Self.app, Self.appPurpose, reuse: 300))
  }

  @Test("Rule 7: an app's match is not reused by sudo (reuse_duration 120), nor by the app itself")
  func appNotReusedBySudo() throws {
    let world = try matched(Self.app, Self.appPurpose, limit: 120)
    world.clock.advance(by: 5)
    try expectScanNeeded(world, request(world, Self.sudo, .service("sudo"), reuse: 120))
    try expectScanNeeded(world, request(world, Self.app, Self.appPurpose, reuse: 300))
  }

  @Test("Rule 7: sudo then sudo within the window is reused; su on that terminal is not")
  func sudoThenSudo() throws {
    let world = try matched(Self.sudo, .service("sudo"), limit: 120)
    world.clock.advance(by: 100)
    #expect(try world.evaluator.evaluate(request(world, Self.sudo, .service("sudo"), reuse: 120)) == .success(.reuse))
    // su on the same terminal is another purpose.
    var su = Self.sudo
    su.service = "su"
    try expectScanNeeded(world, request(world, su, .service("su"), reuse: 120))
  }

  @Test("Rule 7: the administrator's reuse_duration caps the window a request asks for")
  func limitCapsRequested() throws {
    let world = try matched(Self.sudo, .service("sudo"), limit: 120)
    world.clock.advance(by: 121)
    try expectScanNeeded(world, request(world, Self.sudo, .service("sudo"), reuse: 300))
  }

  @Test("Rule 7: a session unlock is reused by an app of the same login session, and not past reuse_duration")
  func unlockReusedByApp() throws {
    let world = try matched(Self.locker, .sessionUnlock, limit: 60)
    world.clock.advance(by: 30)
    let reused = request(world, Self.app, Self.appPurpose, policy: .deviceOwnerAuthentication, reuse: 300, interactionAllowed: false)
    #expect(try world.evaluator.evaluate(reused) == .success(.reuse))
    // Another login session of the same user, or another user, does not.
    var other = Self.app
    other.loginSession = "9"
    #expect(try world.evaluator.evaluate(request(world, other, Self.appPurpose, reuse: 300, interactionAllowed: false)) == .failure(.notInteractive, .none))
    other = Self.app
    other.requesterUID = 1001
    #expect(try world.evaluator.evaluate(request(world, other, Self.appPurpose, reuse: 300, interactionAllowed: false)) == .failure(.notInteractive, .none))
    world.clock.advance(by: 31)
    #expect(try world.evaluator.evaluate(reused) == .failure(.notInteractive, .none))
  }

  @Test("Rule 7: a console login's unlock (asked by root) is reused by the user's app of that session")
  func rootAskedUnlock() throws {
    var login = Self.locker
    login.service = "login"
    login.requesterUID = 0
    let world = try matched(login, .sessionUnlock)
    #expect(try world.evaluator.evaluate(request(world, Self.app, Self.appPurpose, reuse: 60, interactionAllowed: false)) == .success(.reuse))
    // A session unlock with no login session serves no app.
    login.loginSession = ""
    let unscoped = try matched(login, .sessionUnlock)
    var app = Self.app
    app.loginSession = ""
    #expect(try unscoped.evaluator.evaluate(request(unscoped, app, Self.appPurpose, reuse: 60, interactionAllowed: false)) == .failure(.notInteractive, .none))
  }

  @Test("Rule 7: reuse_duration 0 means no window anywhere: not for sudo, not for an app asking 300")
  func zeroLimitNoReuse() throws {
    let world = try matched(Self.sudo, .service("sudo"), limit: 0)
    #expect(try world.record().reuse != nil)
    try expectScanNeeded(world, request(world, Self.sudo, .service("sudo"), reuse: 300))
    let unlocked = try matched(Self.locker, .sessionUnlock, limit: 0)
    #expect(try unlocked.evaluator.evaluate(request(unlocked, Self.app, Self.appPurpose, reuse: 300, interactionAllowed: false)) == .failure(.notInteractive, .none))
    #expect(Options().evaluation.reuseLimit == 0 && Options().reuseDuration == 0)
    var options = Options()
    options.reuseDuration = 120
    #expect(options.evaluation.reuseLimit == 120)
  }

  @Test("Rule 7: a stamp in the old format (no purpose) is never reused")
  func oldFormatStamp() throws {
    let world = try TestWorld()
    try world.prime()
    let state = try #require(try world.record().domainState)
    let text = "localauth-state 1\nenrollment.domain-state \(state)\nreuse \(world.clock.now()) \(world.clock.bootID()) \(state) 1000 \(Self.sudo.reuseScope)\nend\n"
    let old = try StateCodec.decode(Array(text.utf8), path: "t")
    try world.store.update(world.user) { $0.reuseStamps = old.reuseStamps }
    #expect(try world.record().reuseStamps.isEmpty)
    try expectScanNeeded(world, request(world, Self.sudo, .service("sudo"), reuse: 300))
  }

  @Test("Rule 7: a hidden request with interactionNotAllowed gets no success, whatever stamp there is")
  func hiddenNoSuccess() throws {
    let world = try matched(Self.locker, .sessionUnlock)
    for policy in AuthPolicy.allCases {
      var hidden = request(world, Self.app, Self.appPurpose, policy: policy, reuse: 300, interactionAllowed: false)
      hidden.hidden = true
      let outcome = try world.evaluator.evaluate(hidden)
      #expect(!outcome.isSuccess)
      #expect(outcome == .failure(.notInteractive, .none))
    }
  }

  @Test("Rule 7 and Intent: an app's request runs the visibility check even when interaction is not allowed")
  func appVisibilityWithoutInteraction() throws {
    let world = try TestWorld()
    var fds: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
    defer { close(fds[0]); close(fds[1]) }
    // pid 4242 has no controlling terminal: a background job or a daemon of the user.
    var proc = IntentTests.FakeProc()
    proc.add(4242, "notes", parent: 1, group: 4242, tty: 0, foreground: -1)
    var options = Options()
    options.evaluation = world.settings
    options.reuseDuration = 120
    let session = AppSession(
      channel: HelperChannel(fd: fds[0]), user: world.user, callerPID: 4242, options: options, log: world.log,
      system: proc.system,
      build: { _, prompter, log in
        Dependencies(clock: world.clock, store: world.store, sensor: world.sensor, prompter: prompter, log: log)
      })
    let prompt = AppPrompt(reason: "open your notes", reuseSeconds: 300, interactionNotAllowed: true)
    let request = try session.request(prompt, policy: .deviceOwnerAuthentication)
    #expect(!request.interactionAllowed)
    #expect(request.reuseDuration == 120)  // the app asked 300; reuse_duration caps it
    guard case .app = request.purpose else {
      Issue.record("an app's request has purpose \(request.purpose)")
      return
    }
    // Only a local request is checked (a remote one never reuses anyway).
    #expect(request.remote || request.hidden)
  }
}
