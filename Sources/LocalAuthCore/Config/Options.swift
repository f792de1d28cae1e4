/// The module's and the CLI's settings: defaults, then the configuration file, then the arguments.
public struct Options: Equatable, Sendable {
  /// The default configuration file.
  public static let defaultConfigPath = "/etc/security/localauth.conf"

  /// The policy to evaluate.
  public var policy: AuthPolicy = .deviceOwnerAuthentication
  /// The reason shown to the user; nil derives one from the service.
  public var reason: String?
  /// The fallback button's title; nil for the default, empty to hide it.
  public var fallbackTitle: String?
  /// The reuse window in seconds (0–300); setting it also caps every window, apps' included
  /// (`EvaluationSettings.reuseLimit`).
  public var reuseDuration: Double = 0 {
    didSet { evaluation.reuseLimit = reuseDuration }
  }
  /// Protect only users who enabled this feature; others get PAM_IGNORE.
  public var feature: String?
  /// The state folder.
  public var stateDirectory: String = FileStateStore.defaultRoot
  /// The runtime folder for waiting prompts (`runtime_dir=`); nil derives it (`runtimeRoot`).
  public var runtimeDirectory: String?
  /// The simulated sensor's modality, or nil for no sensor.
  public var sensor: Modality? = .touchID
  /// A real reader through fprintd instead of the simulated sensor (`sensor=fprintd`).
  public var fprintd = false
  /// Where fprintd keeps its prints (the domain state's source).
  public var fprintDirectory = "/var/lib/fprint"
  /// Seconds a presented sensor event stays valid.
  public var eventExpiry: Double = 30
  /// Log debug lines.
  public var debug = false
  /// Skip the failure pause: without it a failed authentication asks libpam for pam_unix's 2 s `pam_fail_delay`.
  public var noDelay = false
  /// The evaluation rules; no reuse window unless `reuse_duration=` opens one.
  public var evaluation = EvaluationSettings.withoutReuse
  /// PAM services whose application shows its own prompt without a terminal (`gui_services=`): their requests
  /// are visible without one (RequestVisibility).
  public var guiServices = RequestVisibility.defaultGUIServices
  /// PAM services whose matches are session unlocks (`unlock_services=`), which apps may reuse (rule 7).
  public var unlockServices = ReusePurpose.defaultUnlockServices
  /// Terminal emulators, by the name of their executable, that show a pseudo-terminal to the person at the
  /// machine (`terminal_programs=`; TerminalWatch).
  public var terminalPrograms = RequestVisibility.defaultTerminalPrograms
  /// The user presses Enter before the finger is asked for (`confirm`).
  public var confirm = false
  /// localauth-helper, which the module runs when it cannot read the state itself (an unprivileged caller).
  public var helperPath = Options.defaultHelperPath

  /// Where `make install` puts localauth-helper.
  public static let defaultHelperPath = "/usr/sbin/localauth-helper"
  /// The runtime folder beside the default state folder: tmpfs, emptied at boot, like /run/sudo and /run/faillock.
  public static let defaultRuntimeRoot = "/run/localauth"

  /// Where waiting prompts live: `runtime_dir=` when given; else /run/localauth beside the default state folder,
  /// and the state folder itself when `state_dir=` moved it (tests, chroots), so one setting moves both.
  public var runtimeRoot: String {
    runtimeDirectory ?? (stateDirectory == FileStateStore.defaultRoot ? Self.defaultRuntimeRoot : stateDirectory)
  }
  /// The keychain and login-secret options (KeychainOptions.swift).
  public var keychain = KeychainOptions()
  /// The TPM that seals new keychain device keys (`tpm=`, a tpm2-tss TCTI); nil for none (`tpm=none`).
  public var tpm: String? { keychain.tpm }

  /// The defaults.
  public init() {}
}

/// One accepted option: its key, whether it takes a value, and how it applies.
struct OptionSpec: Sendable {
  let key: String
  let takesValue: Bool
  let expected: String
  let apply: @Sendable (inout Options, String) -> Bool
}

/// Parses `key=value` arguments and configuration-file lines into `Options`, pam_unix-style.
///
/// Defaults, then the `conf=` file (or the default file, which may be missing), then the arguments, all
/// through one table. A malformed value of a known key is an error; an unknown key is reported and ignored.
public enum OptionParser {
  /// The most arguments or file lines accepted.
  public static let maximumEntries = 256
  /// The longest argument or line accepted.
  public static let maximumEntryLength = 1024
  /// The largest configuration file accepted.
  public static let maximumFileSize = 64 * 1024

  /// The result of parsing: options and the unknown keys that were ignored.
  public struct Parsed: Equatable, Sendable {
    /// The options.
    public var options: Options
    /// Warnings to log, one sentence each.
    public var warnings: [String]
  }

  /// Parses module arguments; `readFile` returns a file's text or nil when it does not exist.
  public static func parse(
    arguments: [String], readFile: (String) throws(ConfigFileProblem) -> String?
  ) throws(ConfigError) -> Parsed {
    guard arguments.count <= maximumEntries else { throw .tooLarge(what: "more than \(maximumEntries) arguments") }
    var options = Options()
    var warnings: [String] = []
    let explicit = arguments.last(where: { $0.hasPrefix("conf=") }).map { String($0.dropFirst(5)) }
    let path = explicit ?? Options.defaultConfigPath
    if explicit == "" { throw .invalid(key: "conf", value: "", expected: "an absolute path") }
    if let explicit, !explicit.hasPrefix("/") {
      throw .invalid(key: "conf", value: explicit, expected: "an absolute path")
    }
    let text: String?
    do {
      text = try readFile(path)
    } catch {
      // The message names the path once: "Cannot read configuration file P: it is a symbolic link."
      throw .unreadable(path: path, reason: error.description)
    }
    if let text {
      try apply(numberedFileLines(text), to: &options, warnings: &warnings, source: .file(path))
    } else if explicit != nil {
      throw .unreadable(path: path, reason: "it does not exist")
    }
    let entries = arguments.filter { !$0.hasPrefix("conf=") }.map { Entry(text: $0, line: 0) }
    try apply(entries, to: &options, warnings: &warnings, source: .arguments)
    return Parsed(options: options, warnings: warnings)
  }

  /// Where entries come from. A file's text is never repeated in a warning or an error, only its line number:
  /// `conf=` may name a file that holds a secret, and the log is read by more people than the file.
  enum Source {
    /// The PAM line's arguments, which root wrote: a warning may name the key.
    case arguments
    /// A configuration file.
    case file(String)
  }

  /// One argument, or one file line in argument form with its 1-based line number (0 for arguments).
  struct Entry {
    let text: String
    let line: Int
  }

  /// Turns configuration-file text into argument form: comments and blank lines dropped, `k = v` → `k=v`.
  ///
  /// Works on the UTF-8 bytes: lines end at "\n" (so "\r\n" files work), and only ASCII blanks are trimmed,
  /// which keeps the module's start-up free of Unicode grapheme and scalar machinery.
  public static func fileLines(_ text: String) throws(ConfigError) -> [String] { try numberedFileLines(text).map { $0.text } }

  /// `fileLines(_:)` with each entry's line number, for messages that must not repeat the line.
  static func numberedFileLines(_ text: String) throws(ConfigError) -> [Entry] {
    guard text.utf8.count <= maximumFileSize else { throw .tooLarge(what: "file larger than \(maximumFileSize) bytes") }
    var entries: [Entry] = []
    var text = text
    text.withUTF8 { bytes in
      func trimmed(_ range: Range<Int>) -> Range<Int> {
        var (lower, upper) = (range.lowerBound, range.upperBound)
        while lower < upper, isBlank(bytes[lower]) { lower += 1 }
        while upper > lower, isBlank(bytes[upper - 1]) { upper -= 1 }
        return lower..<upper
      }
      func string(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
      var start = 0
      var number = 0
      while start < bytes.count {
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
        let line = trimmed(start..<end)
        start = end + 1
        number += 1
        if line.isEmpty || bytes[line.lowerBound] == UInt8(ascii: "#") { continue }
        guard let eq = line.first(where: { bytes[$0] == UInt8(ascii: "=") }) else {
          entries.append(Entry(text: string(line), line: number))
          continue
        }
        var value = trimmed(eq + 1..<line.upperBound)
        let quote = UInt8(ascii: "\"")
        if value.count >= 2, bytes[value.lowerBound] == quote, bytes[value.upperBound - 1] == quote {
          value = value.lowerBound + 1..<value.upperBound - 1
        }
        entries.append(Entry(text: string(trimmed(line.lowerBound..<eq)) + "=" + string(value), line: number))
      }
    }
    guard entries.count <= maximumEntries else { throw .tooLarge(what: "more than \(maximumEntries) lines") }
    return entries
  }

  /// Space, tab, carriage return or newline.
  private static func isBlank(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
  }

  /// Applies entries in order through the option table.
  static func apply(_ entries: [Entry], to options: inout Options, warnings: inout [String], source: Source) throws(ConfigError) {
    for numbered in entries {
      let entry = numbered.text
      guard entry.utf8.count <= maximumEntryLength else { throw .tooLarge(what: "an entry longer than \(maximumEntryLength) bytes") }
      let key: String
      let value: String?
      if let eq = entry.firstIndex(of: "=") {
        key = String(entry[..<eq])
        value = String(entry[entry.index(after: eq)...])
      } else {
        key = entry
        value = nil
      }
      guard let spec = table.first(where: { $0.key == key }) else {
        switch source {
        case .arguments: warnings.append("Unrecognized option [\(key.prefix(64))] in arguments ignored.")
        case .file(let path): warnings.append("Unrecognized option on line \(numbered.line) of \(path) ignored.")
        }
        continue
      }
      // The key is the table's own; the value is named only when it came from the arguments.
      func invalid(_ value: String, _ expected: String) -> ConfigError {
        switch source {
        case .arguments: .invalid(key: key, value: value, expected: expected)
        case .file(let path): .invalidInFile(key: key, path: path, line: numbered.line, expected: expected)
        }
      }
      // A NUL would cut the value short wherever it becomes a C string (strtod parses "5\u{0}0" as 5).
      if let value, value.utf8.contains(0) {
        throw invalid(value, spec.takesValue ? spec.expected : "no value, or a boolean")
      }
      if spec.takesValue {
        guard let value else { throw .missingValue(key: key) }
        guard spec.apply(&options, value) else { throw invalid(value, spec.expected) }
      } else {
        guard value == nil || boolean(value!) != nil else { throw invalid(value!, "no value, or a boolean") }
        _ = spec.apply(&options, value ?? "1")
      }
    }
  }

  static func seconds(_ value: String, in range: ClosedRange<Double>) -> Double? {
    guard let n = Double(value), n.isFinite, range.contains(n) else { return nil }
    return n
  }

  /// The names of a comma-separated list (`gui_services=`, `unlock_services=`, `terminal_programs=`); an empty value
  /// is the empty list; nil when a name is not a valid item name.
  static func nameList(_ value: String) -> [String]? {
    guard !value.isEmpty else { return [] }
    let names = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    return names.allSatisfy(isValidItemName) ? names : nil
  }

  static func boolean(_ value: String) -> Bool? {
    switch value {
    case "1", "true", "yes", "on": true
    case "0", "false", "no", "off": false
    default: nil
    }
  }

  /// Every option, as in pam_unix's `unix_args[]`.
  static let table: [OptionSpec] = evaluationTable + keychainTable

  /// The options of the evaluation, the sensor and the state.
  static let evaluationTable: [OptionSpec] = [
    OptionSpec(key: "policy", takesValue: true, expected: "deviceOwnerAuthentication or deviceOwnerAuthenticationWithBiometrics") {
      guard let p = AuthPolicy(name: $1) else { return false }
      $0.policy = p
      return true
    },
    OptionSpec(key: "reason", takesValue: true, expected: "a non-empty text") {
      guard !$1.isEmpty else { return false }
      $0.reason = $1
      return true
    },
    OptionSpec(key: "fallback_title", takesValue: true, expected: "a text (empty hides the fallback)") {
      $0.fallbackTitle = $1
      return true
    },
    OptionSpec(key: "reuse_duration", takesValue: true, expected: "seconds from 0 to \(Int(EvaluationRequest.maximumReuseDuration))") {
      guard let s = seconds($1, in: 0...EvaluationRequest.maximumReuseDuration) else { return false }
      $0.reuseDuration = s
      return true
    },
    OptionSpec(key: "timeout", takesValue: true, expected: "seconds from 1 to 600") {
      guard let s = seconds($1, in: 1...600) else { return false }
      $0.evaluation.sensorTimeout = s
      return true
    },
    OptionSpec(key: "feature", takesValue: true, expected: "a feature name of letters, digits, '.', '_' or '-'") {
      guard isValidItemName($1) else { return false }
      $0.feature = $1
      return true
    },
    OptionSpec(key: "state_dir", takesValue: true, expected: "an absolute path") {
      guard $1.hasPrefix("/"), $1.utf8.count < 512 else { return false }
      $0.stateDirectory = $1
      return true
    },
    OptionSpec(key: "runtime_dir", takesValue: true, expected: "an absolute path") {
      guard $1.hasPrefix("/"), $1.utf8.count < 512 else { return false }
      $0.runtimeDirectory = $1
      return true
    },
    OptionSpec(key: "helper", takesValue: true, expected: "an absolute path") {
      guard $1.hasPrefix("/"), $1.utf8.count < 512 else { return false }
      $0.helperPath = $1
      return true
    },
    OptionSpec(key: "sensor", takesValue: true, expected: "touchid, faceid, fprintd or none") {
      $0.fprintd = $1 == "fprintd"
      if $1 == "none" {
        $0.sensor = nil
        return true
      }
      if $1 == "fprintd" {
        $0.sensor = .touchID
        return true
      }
      guard let m = Modality(name: $1) else { return false }
      $0.sensor = m
      return true
    },
    OptionSpec(key: "fprint_dir", takesValue: true, expected: "an absolute path") {
      guard $1.hasPrefix("/"), $1.utf8.count < 512 else { return false }
      $0.fprintDirectory = $1
      return true
    },
    OptionSpec(key: "event_expiry", takesValue: true, expected: "seconds from 1 to 3600") {
      guard let s = seconds($1, in: 1...3600) else { return false }
      $0.eventExpiry = s
      return true
    },
    OptionSpec(key: "lockout_threshold", takesValue: true, expected: "a count from 1 to 100") {
      guard let n = Int($1), (1...100).contains(n) else { return false }
      $0.evaluation.lockoutThreshold = n
      return true
    },
    OptionSpec(key: "passcode_after_reboot", takesValue: true, expected: "yes or no") {
      guard let b = boolean($1) else { return false }
      $0.evaluation.passcodeAfterReboot = b
      return true
    },
    OptionSpec(key: "passcode_after_enrollment_change", takesValue: true, expected: "yes or no") {
      guard let b = boolean($1) else { return false }
      $0.evaluation.passcodeAfterEnrollmentChange = b
      return true
    },
    OptionSpec(key: "idle_limit", takesValue: true, expected: "seconds from 0 (off) to 31536000") {
      guard let s = seconds($1, in: 0...31_536_000) else { return false }
      $0.evaluation.idleLimit = s
      return true
    },
    OptionSpec(key: "passcode_max_age", takesValue: true, expected: "seconds from 0 (off) to 31536000") {
      guard let s = seconds($1, in: 0...31_536_000) else { return false }
      $0.evaluation.passcodeMaxAge = s
      return true
    },
    OptionSpec(key: "biometry_max_age", takesValue: true, expected: "seconds from 0 (off) to 31536000") {
      guard let s = seconds($1, in: 0...31_536_000) else { return false }
      $0.evaluation.biometryMaxAge = s
      return true
    },
    OptionSpec(key: "passcode", takesValue: true, expected: "separate or account") {
      guard let source = PasscodeSource(rawValue: $1) else { return false }
      $0.evaluation.passcodeSource = source
      return true
    },
    OptionSpec(key: "hash_cost", takesValue: true, expected: "a yescrypt cost from 1 to 11") {
      guard let n = UInt($1), (1...11).contains(n) else { return false }
      $0.evaluation.hasher = PasscodeHasher(cost: n)
      return true
    },
    OptionSpec(key: "gui_services", takesValue: true, expected: "PAM service names separated by commas") {
      guard let names = nameList($1) else { return false }
      $0.guiServices = names
      return true
    },
    OptionSpec(key: "unlock_services", takesValue: true, expected: "PAM service names separated by commas") {
      guard let names = nameList($1) else { return false }
      $0.unlockServices = names
      return true
    },
    OptionSpec(key: "terminal_programs", takesValue: true, expected: "program names separated by commas") {
      guard let names = nameList($1) else { return false }
      $0.terminalPrograms = names
      return true
    },
    OptionSpec(key: "confirm", takesValue: false, expected: "") {
      $0.confirm = boolean($1) ?? true
      return true
    },
    OptionSpec(key: "debug", takesValue: false, expected: "") {
      $0.debug = boolean($1) ?? true
      return true
    },
    OptionSpec(key: "nodelay", takesValue: false, expected: "") {
      $0.noDelay = boolean($1) ?? true
      return true
    },
    OptionSpec(key: "parallel_passcode", takesValue: false, expected: "") {
      $0.evaluation.parallelPasscode = boolean($1) ?? true
      return true
    },
  ]
}
