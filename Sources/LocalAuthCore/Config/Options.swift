/// The module's and the CLI's settings: defaults, then the configuration file, then the arguments.
public struct Options: Equatable, Sendable {
  /// The default configuration file.
  package static let defaultConfigPath = "/etc/security/localauth.conf"

  /// The policy to evaluate.
  package var policy: AuthPolicy = .deviceOwnerAuthentication
  /// The reason shown to the user; nil derives one from the service.
  package var reason: String?
  /// The fallback button's title; nil for the default, empty to hide it.
  package var fallbackTitle: String?
  /// The reuse window in seconds (0–300); setting it also caps every window, apps' included
  /// (`EvaluationSettings.reuseLimit`).
  package var reuseDuration: Double = 0 {
    didSet { evaluation.reuseLimit = reuseDuration }
  }
  /// Protect only users who enabled this feature; others get PAM_IGNORE.
  package var feature: String?
  /// The state folder.
  package var stateDirectory: String = FileStateStore.defaultRoot
  /// The runtime folder for waiting prompts (`runtime_dir=`); nil derives it (`runtimeRoot`).
  package var runtimeDirectory: String?
  /// The simulated sensor's modality, or nil for no sensor.
  package var sensor: Modality? = .touchID
  /// A real reader through fprintd instead of the simulated sensor (`sensor=fprintd`).
  package var fprintd = false
  /// Where fprintd keeps its prints (the domain state's source).
  package var fprintDirectory = "/var/lib/fprint"
  /// Seconds a presented sensor event stays valid.
  package var eventExpiry: Double = 30
  /// Log debug lines.
  package var debug = false
  /// Skip the failure pause: without it a failed authentication asks libpam for pam_unix's 2 s `pam_fail_delay`.
  package var noDelay = false
  /// The evaluation rules; no reuse window unless `reuse_duration=` opens one.
  package var evaluation = EvaluationSettings.withoutReuse
  /// PAM services whose application shows its own prompt without a terminal (`gui_services=`): their requests
  /// are visible without one (RequestVisibility).
  package var guiServices = RequestVisibility.defaultGUIServices
  /// PAM services whose matches are session unlocks (`unlock_services=`), which apps may reuse (rule 7).
  package var unlockServices = ReusePurpose.defaultUnlockServices
  /// Terminal emulators, by the name of their executable, that show a pseudo-terminal to the person at the
  /// machine (`terminal_programs=`; TerminalWatch).
  package var terminalPrograms = RequestVisibility.defaultTerminalPrograms
  /// Screen lockers, by the name of their executable, that answer the passcode prompt with what was typed before
  /// Return (`locker_programs=`; ScreenLocker): the typed passcode is checked before the finger is asked for.
  package var lockerPrograms = ScreenLocker.defaultPrograms
  /// The user presses Enter before the finger is asked for (`confirm`).
  package var confirm = false
  /// An app without a visible terminal gets the desktop's dialog through polkit (`app_dialog=`; PolkitDialog);
  /// with `no`, notInteractive as before.
  package var appDialog = true
  /// localauth-helper, which the module runs when it cannot read the state itself (an unprivileged caller).
  package var helperPath = Options.defaultHelperPath

  /// Where `make install` puts localauth-helper.
  package static let defaultHelperPath = "/usr/sbin/localauth-helper"
  /// The runtime folder beside the default state folder: tmpfs, emptied at boot, like /run/sudo and /run/faillock.
  package static let defaultRuntimeRoot = "/run/localauth"

  /// Where waiting prompts live: `runtime_dir=` when given; else /run/localauth beside the default state folder,
  /// and the state folder itself when `state_dir=` moved it (tests, chroots), so one setting moves both.
  package var runtimeRoot: String {
    runtimeDirectory ?? (stateDirectory == FileStateStore.defaultRoot ? Self.defaultRuntimeRoot : stateDirectory)
  }
  /// The keychain and login-secret options (KeychainOptions.swift).
  package var keychain = KeychainOptions()
  /// The TPM that seals new keychain device keys (`tpm=`, a tpm2-tss TCTI); nil for none (`tpm=none`).
  package var tpm: String? { keychain.tpm }

  /// The defaults.
  public init() {}
}
