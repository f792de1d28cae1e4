@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// A password database with fixed entries (fake /etc/shadow lines).
final class FakeShadow: AccountPasswords, @unchecked Sendable {
  var entries: [String: ShadowEntry] = [:]
  func entry(for user: UserName) -> ShadowEntry? { entries[user.value] }
}

/// `passcode=account`: the login password is the passcode (docs/RULES.md, "Passcode"), under rules 5 and 6.
@Suite("passcode=account: the login password as the passcode")
struct AccountPasscodeTests {
  static let password = "correct horse"
  /// ManualClock's day (days since 1970-01-01) for aging fields.
  static func today(_ world: TestWorld) -> Int { Int(world.clock.now().seconds / 86_400) }

  func world(sensor: Bool = false, entry: ((String) -> ShadowEntry)? = nil) throws -> (TestWorld, FakeShadow) {
    let world = try TestWorld(sensorPresent: sensor)
    world.settings.passcodeSource = .account
    let shadow = FakeShadow()
    let hash = try world.settings.hasher.hash(SecretBytes(Self.password))
    shadow.entries[world.user.value] = entry?(hash) ?? ShadowEntry(hash: hash, lastChange: Self.today(world) - 1, maximumAge: 99999)
    world.accountPasswords = shadow
    return (world, shadow)
  }

  @Test("shadow rules: locked, empty, expired, inactive and aged passwords are refused as pam_unix refuses them")
  func shadowRules() {
    let hash = "$y$j9T$salt$hash"
    let today = 20_000
    #expect(ShadowEntry(hash: hash, lastChange: today - 10, maximumAge: 99999).refusal(today: today) == nil)
    #expect(ShadowEntry(hash: hash).refusal(today: today) == nil)
    #expect(ShadowEntry(hash: "!" + hash).refusal(today: today) == .locked)
    #expect(ShadowEntry(hash: "!").refusal(today: today) == .locked)
    #expect(ShadowEntry(hash: "*").refusal(today: today) == .locked)
    #expect(ShadowEntry(hash: "").refusal(today: today) == .noPassword)
    #expect(ShadowEntry(hash: "abcdefghijklm").refusal(today: today) == .unsupportedHash)
    #expect(ShadowEntry(hash: hash, expiresOn: today).refusal(today: today) == .accountExpired)
    #expect(ShadowEntry(hash: hash, expiresOn: today + 1).refusal(today: today) == nil)
    #expect(ShadowEntry(hash: hash, lastChange: 0).refusal(today: today) == .changeRequired)
    #expect(ShadowEntry(hash: hash, lastChange: today - 31, maximumAge: 30).refusal(today: today) == .passwordExpired)
    #expect(ShadowEntry(hash: hash, lastChange: today - 30, maximumAge: 30).refusal(today: today) == nil)
    #expect(ShadowEntry(hash: hash, lastChange: today - 38, maximumAge: 30, inactiveDays: 7).refusal(today: today) == .inactive)
    #expect(ShadowEntry(hash: hash, lastChange: today - 37, maximumAge: 30, inactiveDays: 7).refusal(today: today) == .passwordExpired)
    #expect(ShadowEntry(hash: hash, lastChange: today + 5, maximumAge: 1).refusal(today: today) == nil)
    #expect(AccountRefusal.locked.description == "the password is locked")
  }

  @Test("the login password is accepted with no passcode set, asked for as \"Enter Password\", and clears rule 6")
  func accepted() throws {
    let (world, _) = try world()
    #expect(try world.record().passcodeHash == nil)
    #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthentication, for: world.user) == nil)
    world.prompter.enqueue(Self.password)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(world.prompter.prompts.last == "prompt: Enter Password: ")
    let record = try world.record()
    #expect(record.lastPasscodeBootID == world.clock.bootID())
    #expect(record.lastPasscodeSuccess == world.clock.now())
    #expect(world.log.lines.contains("Login password accepted as the passcode for user alice."))
  }

  @Test("a caller's fallback title still names the prompt (Apple's rule)")
  func fallbackTitle() throws {
    let (world, _) = try world()
    world.prompter.enqueue(Self.password)
    #expect(try world.evaluate(.deviceOwnerAuthentication, fallbackTitle: "Use Password") == .success(.passcode))
    #expect(world.prompter.prompts.last == "prompt: Use Password: ")
  }

  @Test("wrong passwords count as wrong passcodes, with their origin, and the fifth delays the next by 1 minute")
  func wrongPasswordsDelay() throws {
    let (world, _) = try world()
    for attempt in 1...5 {
      world.prompter.enqueue("wrong \(attempt)")
      #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.authenticationFailed, .none))
    }
    let record = try world.record()
    #expect(record.passcodeFailures == 5)
    #expect(record.recentFailures.filter { $0.kind == .passcode }.count == 5)
    #expect(record.passcodeNextAllowed == world.clock.now().adding(60))
    #expect(world.shown("error: ").first == "error: Wrong password.")
    #expect(world.shown("error: ").last == "error: Wrong password. Try again in 1 minute.")
    world.prompter.enqueue(Self.password)
    let prompts = world.prompter.prompts.count
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.authenticationFailed, .passcodeDelayed(until: world.clock.now().adding(60))))
    #expect(world.prompter.prompts.count == prompts)
    #expect(world.shown("error: ").last == "error: Password entry is disabled after repeated failures. Try again in 1 minute.")
    world.clock.advance(by: 60)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(try world.record().passcodeFailures == 0)
  }

  @Test("a repeated identical wrong password counts once")
  func repeatedWrong() throws {
    let (world, _) = try world()
    for _ in 1...2 {
      world.prompter.enqueue("the same wrong one")
      _ = try world.evaluate(.deviceOwnerAuthentication)
    }
    #expect(try world.record().passcodeFailures == 1)
  }

  @Test("a password changed in the shadow file: the new one works, the old one is wrong")
  func changedPassword() throws {
    let (world, shadow) = try world()
    let newHash = try world.settings.hasher.hash(SecretBytes("new secret"))
    shadow.entries[world.user.value] = ShadowEntry(hash: newHash)
    world.prompter.enqueue(Self.password)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.authenticationFailed, .none))
    world.prompter.enqueue("new secret")
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
  }

  @Test("the finger is offered once the password was entered in this boot; the enrolled finger then succeeds")
  func fingerAfterPassword() throws {
    let (world, _) = try world(sensor: true)
    try world.enroll()
    world.prompter.enqueue(Self.password)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))  // rule 6: after a reboot
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.biometry))
  }

  @Test("a locked, expired or missing login password: the passcode does not apply, with one line naming why")
  func refusedAccounts() throws {
    for (entry, why) in [
      ({ (hash: String) in ShadowEntry(hash: "!" + hash) }, "the password is locked"),
      ({ (hash: String) in ShadowEntry(hash: hash, expiresOn: 1) }, "the account has expired (account expired)"),
      ({ (hash: String) in ShadowEntry(hash: hash, lastChange: 1, maximumAge: 30, inactiveDays: 7) },
        "the account has expired (failed to change password)"),
    ] {
      let (world, _) = try world(entry: entry)
      #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthentication, for: world.user) == .passcodeNotSet)
      world.prompter.enqueue(Self.password)
      #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.passcodeNotSet, .none))
      #expect(world.prompter.prompts.isEmpty)
      var options = Options()
      options.evaluation = world.settings
      options.sensor = nil
      let authentication = UserAuthentication(
        userName: "alice", service: "su", tty: "", remoteHost: "", origin: RequestOrigin(), remoteVariables: [:])
      let result = try authentication.run(options: options, dependencies: world.dependencies, userExists: { _ in true })
      #expect(result == .doesNotApply(featureNotEnabled: false))
      #expect(world.log.lines.last == "The login password of user alice is refused as the passcode: \(why).")
    }
  }

  @Test("with the separate passcode (the default) the login password is never consulted")
  func separateIgnoresShadow() throws {
    let (world, _) = try world()
    world.settings.passcodeSource = .separate
    #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthentication, for: world.user) == .passcodeNotSet)
    try world.setPasscode()
    world.prompter.enqueue(Self.password)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.authenticationFailed, .none))
    #expect(world.prompter.prompts.last == "prompt: Enter Passcode: ")
  }

  @Test("passcode= takes separate or account; anything else is a configuration error")
  func option() throws {
    let none: (String) throws(ConfigFileProblem) -> String? = { _ in nil }
    #expect(try OptionParser.parse(arguments: [], readFile: none).options.evaluation.passcodeSource == .separate)
    #expect(try OptionParser.parse(arguments: ["passcode=account"], readFile: none).options.evaluation.passcodeSource == .account)
    #expect(throws: ConfigError.self) { try OptionParser.parse(arguments: ["passcode=login"], readFile: none) }
  }
}
