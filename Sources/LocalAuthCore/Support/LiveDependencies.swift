import CSyscalls

/// The one place where the live side effects are built from the effective options: the module, localauthctl and
/// LocalAuthentication's system context all go through here.
extension Dependencies {
  /// The system clock, the state folder of `options` and its keychain, the configured sensor (the simulated one,
  /// its prompts in the runtime folder; fprintd; or none), and the caller's own prompter and log.
  public static func live(_ options: Options, prompter: AuthPrompter, log: AuthLog) -> Dependencies {
    let clock = SystemClock()
    let sensor: BiometricSensor =
      if options.fprintd {
        FprintdSensor(printsFolder: options.fprintDirectory, log: log)
      } else if let modality = options.sensor {
        SpoolSensor(
          modality: modality, runtimeRoot: options.runtimeRoot, clock: clock, log: log, expiry: options.eventExpiry)
      } else {
        AbsentSensor()
      }
    return Dependencies(
      clock: clock, store: FileStateStore(root: options.stateDirectory), sensor: sensor, prompter: prompter, log: log,
      keychain: Keychain(root: options.stateDirectory, tcti: options.tpm, clock: clock))
  }
}

extension OptionParser {
  /// Parses module arguments over the configuration file they name (or the default one), read the safe way.
  public static func parse(arguments: [String]) throws(ConfigError) -> Parsed {
    try parse(arguments: arguments, readFile: ConfigFileReader.read)
  }
}

extension RemoteSession {
  /// Whether the calling process runs in a remote session: PAM_RHOST and PAM_TTY when PAM gives them, the
  /// variables of `RemoteSession.variables` as `environment` finds them, and this process's session and ancestry.
  public static func detectCurrent(
    remoteHost: String = "", tty: String, environment: (String) -> String?
  ) -> Verdict {
    var found: [String: String] = [:]
    for name in variables { found[name] = environment(name) }
    return detect(Input(remoteHost: remoteHost, tty: tty, environment: found, processID: getpid()))
  }
}
