/// One accepted option: its key, whether it takes a value, and how it applies.
struct OptionSpec: Sendable {
  let key: String
  let takesValue: Bool
  let expected: String
  let apply: @Sendable (inout Options, String) -> Bool
}

/// The row kinds of the option table: each validator is written once, and a row names its key, what it expects
/// and the field it sets.
extension OptionSpec {
  /// The expectation of every path option (and of `conf=`).
  static let absolutePathExpected = "an absolute path"

  /// A value that `parse` reads (nil when it is malformed or out of range) and `set` stores.
  static func value<T>(
    _ key: String, expected: String, parse: @escaping @Sendable (String) -> T?,
    set: @escaping @Sendable (inout Options, T) -> Void
  ) -> OptionSpec {
    OptionSpec(key: key, takesValue: true, expected: expected) { options, text in
      guard let value = parse(text) else { return false }
      set(&options, value)
      return true
    }
  }

  /// A flag: given alone it is on; with a value, a boolean (`OptionParser.boolean`) sets it.
  static func flag(_ key: String, set: @escaping @Sendable (inout Options, Bool) -> Void) -> OptionSpec {
    OptionSpec(key: key, takesValue: false, expected: "") { options, text in
      set(&options, OptionParser.boolean(text) ?? true)
      return true
    }
  }

  /// An absolute path shorter than 512 bytes (`state_dir=`, `runtime_dir=`, `helper=`, `fprint_dir=`).
  static func absolutePath(_ key: String, set: @escaping @Sendable (inout Options, String) -> Void) -> OptionSpec {
    value(key, expected: absolutePathExpected, parse: { $0.hasPrefix("/") && $0.utf8.count < 512 ? $0 : nil }, set: set)
  }

  /// Seconds within `range`, finite.
  static func seconds(
    _ key: String, in range: ClosedRange<Double>, expected: String, set: @escaping @Sendable (inout Options, Double) -> Void
  ) -> OptionSpec {
    value(key, expected: expected, parse: { text in Double(text).flatMap { $0.isFinite && range.contains($0) ? $0 : nil } }, set: set)
  }

  /// A whole number within `range`.
  static func count(
    _ key: String, in range: ClosedRange<Int>, expected: String, set: @escaping @Sendable (inout Options, Int) -> Void
  ) -> OptionSpec {
    value(key, expected: expected, parse: { text in Int(text).flatMap { range.contains($0) ? $0 : nil } }, set: set)
  }

  /// yes or no, as a boolean (`OptionParser.boolean`).
  static func yesOrNo(_ key: String, set: @escaping @Sendable (inout Options, Bool) -> Void) -> OptionSpec {
    value(key, expected: "yes or no", parse: OptionParser.boolean, set: set)
  }

  /// A comma-separated list of names (`gui_services=`, `unlock_services=`, `terminal_programs=`,
  /// `locker_programs=`); an empty value is the empty list; malformed when a name is not a valid item name.
  static func names(
    _ key: String, expected: String, set: @escaping @Sendable (inout Options, [String]) -> Void
  ) -> OptionSpec {
    value(key, expected: expected, parse: nameList, set: set)
  }

  /// The names of a comma-separated list; nil when a name is not a valid item name.
  static func nameList(_ value: String) -> [String]? {
    guard !value.isEmpty else { return [] }
    let names = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    return names.allSatisfy(isValidItemName) ? names : nil
  }
}

extension OptionParser {
  /// Every option, as in pam_unix's `unix_args[]`.
  static let table: [OptionSpec] = evaluationTable + keychainTable

  /// The options of the evaluation, the sensor and the state.
  static let evaluationTable: [OptionSpec] = [
    .value(
      "policy", expected: "deviceOwnerAuthentication or deviceOwnerAuthenticationWithBiometrics",
      parse: { AuthPolicy(name: $0) }, set: { $0.policy = $1 }),
    .value("reason", expected: "a non-empty text", parse: { $0.isEmpty ? nil : $0 }, set: { $0.reason = $1 }),
    .value("fallback_title", expected: "a text (empty hides the fallback)", parse: { $0 }, set: { $0.fallbackTitle = $1 }),
    .seconds(
      "reuse_duration", in: 0...EvaluationRequest.maximumReuseDuration, expected: "seconds from 0 to \(Int(EvaluationRequest.maximumReuseDuration))",
      set: { $0.reuseDuration = $1 }),
    .seconds("timeout", in: 1...600, expected: "seconds from 1 to 600", set: { $0.evaluation.sensorTimeout = $1 }),
    .value(
      "feature", expected: "a feature name of letters, digits, '.', '_' or '-'",
      parse: { isValidItemName($0) ? $0 : nil }, set: { $0.feature = $1 }),
    .absolutePath("state_dir", set: { $0.stateDirectory = $1 }),
    .absolutePath("runtime_dir", set: { $0.runtimeDirectory = $1 }),
    .absolutePath("helper", set: { $0.helperPath = $1 }),
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
    .absolutePath("fprint_dir", set: { $0.fprintDirectory = $1 }),
    .seconds("event_expiry", in: 1...3600, expected: "seconds from 1 to 3600", set: { $0.eventExpiry = $1 }),
    .count(
      "lockout_threshold", in: 1...100, expected: "a count from 1 to 100", set: { $0.evaluation.lockoutThreshold = $1 }),
    .yesOrNo("passcode_after_reboot", set: { $0.evaluation.passcodeAfterReboot = $1 }),
    .yesOrNo("passcode_after_enrollment_change", set: { $0.evaluation.passcodeAfterEnrollmentChange = $1 }),
    .seconds(
      "idle_limit", in: 0...31_536_000, expected: "seconds from 0 (off) to 31536000", set: { $0.evaluation.idleLimit = $1 }),
    .seconds(
      "passcode_max_age", in: 0...31_536_000, expected: "seconds from 0 (off) to 31536000",
      set: { $0.evaluation.passcodeMaxAge = $1 }),
    .seconds(
      "biometry_max_age", in: 0...31_536_000, expected: "seconds from 0 (off) to 31536000",
      set: { $0.evaluation.biometryMaxAge = $1 }),
    .value(
      "passcode", expected: "separate or account", parse: { PasscodeSource(rawValue: $0) },
      set: { $0.evaluation.passcodeSource = $1 }),
    .count(
      "hash_cost", in: 1...11, expected: "a yescrypt cost from 1 to 11",
      set: { $0.evaluation.hasher = PasscodeHasher(cost: UInt($1)) }),
    .names("gui_services", expected: "PAM service names separated by commas", set: { $0.guiServices = $1 }),
    .names("unlock_services", expected: "PAM service names separated by commas", set: { $0.unlockServices = $1 }),
    .names("terminal_programs", expected: "program names separated by commas", set: { $0.terminalPrograms = $1 }),
    .names("locker_programs", expected: "program names separated by commas", set: { $0.lockerPrograms = $1 }),
    .flag("confirm", set: { $0.confirm = $1 }),
    .yesOrNo("app_dialog", set: { $0.appDialog = $1 }),
    .flag("debug", set: { $0.debug = $1 }),
    .flag("nodelay", set: { $0.noDelay = $1 }),
    .flag("parallel_passcode", set: { $0.evaluation.parallelPasscode = $1 }),
  ]

  /// The keychain options (`KeychainOptions`).
  static let keychainTable: [OptionSpec] = [
    .value(
      "tpm", expected: "a tpm2-tss TCTI (device:/dev/tpmrm0, swtpm:host=…,port=…) or none",
      parse: { !$0.isEmpty && $0.utf8.count < 256 ? $0 : nil }, set: { $0.keychain.tpm = $1 == "none" ? nil : $1 }),
    .flag("capture_authtok", set: { $0.keychain.captureAuthToken = $1 }),
    .flag("release_authtok", set: { $0.keychain.releaseAuthToken = $1 }),
    .flag("release_on_reuse", set: { $0.keychain.releaseOnReuse = $1 }),
    .count(
      "keychain_max_items", in: 1...100_000, expected: "a count from 1 to 100000",
      set: { $0.keychain.limits.maxItems = $1 }),
    .count(
      "keychain_max_bytes", in: 65536...1_073_741_824, expected: "a byte count from 65536 to 1073741824",
      set: { $0.keychain.limits.maxBytes = $1 }),
    .value(
      "login_secret", expected: "userPresence or biometryCurrentSet",
      parse: { (text: String) -> KeychainAccessFlags? in
        switch text {
        case "userPresence": .userPresence
        case "biometryCurrentSet": .biometryCurrentSet
        default: nil
        }
      },
      set: { $0.keychain.loginSecretFlags = $1 }),
  ]
}
