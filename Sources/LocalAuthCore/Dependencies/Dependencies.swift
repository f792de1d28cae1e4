/// Every side effect the core has comes in through this one value: clock, store, sensor, matcher, UI, log.
public struct Dependencies {
  /// Time and boot identity.
  package var clock: AuthClock
  /// The state store.
  package var store: StateStore
  /// The biometric sensor.
  package var sensor: BiometricSensor
  /// The user interface.
  package var prompter: AuthPrompter
  /// The log.
  package var log: AuthLog
  /// The matcher that compares the sensor's samples with the enrolled templates.
  package var matcher: BiometricMatcher
  /// The users' keychains; nil where there is none (an in-memory test world).
  package var keychain: Keychain?
  /// The system's password database, for `passcode=account` (/etc/shadow unless a test gives fake entries).
  package var accountPasswords: AccountPasswords
  /// The registry every biometric prompt is announced in while it waits, whatever the sensor, so that a user's
  /// second request is seen (docs/RULES.md, "One finger request at a time"); nil where prompts are not
  /// coordinated (a scripted test world).
  package var prompts: PromptRegistry? = nil
  /// Whether the desktop holds a user's screen locked, for data protection (DeviceLock): logind's LockedHint over
  /// the user's sessions at the machine (RemoteSession.screenLocked); nil where nothing reports a lock.
  package var screenLocked: (@Sendable (_ user: UserName) -> Bool?)? = nil
  /// Asks polkitd to show an app's request in the desktop's dialog (PolkitBus.ask; PolkitDialog), polling
  /// `withdrawn` while it is open; nil where there is no polkit (a test world that scripts none).
  package var askPolkit: (@Sendable (_ question: PolkitQuestion, _ withdrawn: () -> Bool) -> PolkitReply)? = nil

  /// Collects the side effects; the matcher is the simulated one unless a test scripts it.
  public init(
    clock: AuthClock, store: StateStore, sensor: BiometricSensor, prompter: AuthPrompter, log: AuthLog,
    matcher: BiometricMatcher = SimulatedMatcher(), keychain: Keychain? = nil,
    accountPasswords: AccountPasswords = SystemAccountPasswords()
  ) {
    self.accountPasswords = accountPasswords
    self.keychain = keychain
    self.clock = clock
    self.store = store
    self.sensor = sensor
    self.prompter = prompter
    self.log = log
    self.matcher = matcher
  }
}
