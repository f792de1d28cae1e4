import LocalAuthCore
import Testing

/// The configuration file's syntax: `key = value` lines, `#` comments, blank lines, quotes, CRLF line ends.
@Suite("Options: configuration file lines")
struct ConfigFileTests {
  @Test func commentsAndBlankLinesAreDroppedAndKeysAndValuesTrimmed() throws {
    let text = "# pam_localauth\n\n   \n\ttimeout = 5 \nreason=Unlock sudo\n  debug\n#timeout=9\n"
    #expect(try OptionParser.fileLines(text) == ["timeout=5", "reason=Unlock sudo", "debug"])
  }

  @Test func windowsLineEndsAndTabsAreBlanks() throws {
    #expect(try OptionParser.fileLines("timeout\t=\t7\r\nsensor = faceid\r\n") == ["timeout=7", "sensor=faceid"])
  }

  @Test func quotesAroundAValueAreRemovedOnce() throws {
    let text = "fallback_title = \"\"\nreason = \"Unlock \"the\" vault\"\nfeature = \"vpn\nstate_dir=\"/x\""
    #expect(try OptionParser.fileLines(text) == ["fallback_title=", "reason=Unlock \"the\" vault", "feature=\"vpn", "state_dir=/x"])
  }

  @Test func onlyALeadingHashIsAComment() throws {
    #expect(try OptionParser.fileLines("reason = a # b\n # all of it\n") == ["reason=a # b"])
  }

  @Test func textOtherThanASCIIIsKeptAsWritten() throws {
    #expect(try OptionParser.fileLines("reason = Déverrouiller 🔐\nfallback_title=パスコード\n") == ["reason=Déverrouiller 🔐", "fallback_title=パスコード"])
  }

  @Test func theFirstEqualsSignSplitsKeyFromValue() throws {
    #expect(try OptionParser.fileLines("reason = a=b\n=5\n") == ["reason=a=b", "=5"])
  }

  @Test func tooLargeOrTooManyLinesIsRefused() {
    #expect(throws: ConfigError.self) { try OptionParser.fileLines(String(repeating: "x", count: OptionParser.maximumFileSize + 1)) }
    #expect(throws: ConfigError.self) { try OptionParser.fileLines(String(repeating: "debug\n", count: OptionParser.maximumEntries + 1)) }
  }

  @Test func aFileParsesIntoOptions() throws {
    let parsed = try OptionParser.parse(arguments: ["conf=/c"]) { _ in "timeout = 9\r\nreason = \"Touch to unlock\"\n" }
    #expect(parsed.options.evaluation.sensorTimeout == 9)
    #expect(parsed.options.reason == "Touch to unlock")
    #expect(parsed.warnings.isEmpty)
  }

  /// Parses `file` as the `conf=/c` file, with `arguments` after it.
  static func parse(file: String, _ arguments: [String] = []) throws -> OptionParser.Parsed {
    try OptionParser.parse(arguments: ["conf=/c"] + arguments) { $0 == "/c" ? file : nil }
  }

  @Test func anUnknownLineIsNamedByItsNumberNeverByItsText() throws {
    let parsed = try Self.parse(file: "# a comment\r\n\nsecret-password-12345\ntimeout = 5\nhunter2 = swordfish\n")
    #expect(parsed.warnings == [
      "Unrecognized option on line 3 of /c ignored.", "Unrecognized option on line 5 of /c ignored.",
    ])
    #expect(!parsed.warnings.contains { $0.contains("secret") || $0.contains("hunter2") || $0.contains("swordfish") })
    #expect(parsed.options.evaluation.sensorTimeout == 5)
  }

  @Test func anUnknownArgumentIsStillNamed() throws {
    #expect(try Self.parse(file: "", ["frobnicate=1"]).warnings == ["Unrecognized option [frobnicate] in arguments ignored."])
  }

  @Test("a malformed value in the file names the key and the line, never the value", arguments: [
    ("timeout = hunter2-secret\n", "timeout", 1, "seconds from 1 to 600"),
    ("# c\n\ndebug = hunter2-secret\n", "debug", 3, "no value, or a boolean"),
    ("policy=x\ntimeout=5\nreason = hunter2\u{0}secret\n", "policy", 1, "deviceOwnerAuthentication or deviceOwnerAuthenticationWithBiometrics"),
    ("timeout=5\r\nreason = hunter2\u{0}secret\r\n", "reason", 2, "a non-empty text"),
  ])
  func aMalformedFileValueIsNotRepeated(_ file: String, _ key: String, _ line: Int, _ expected: String) throws {
    #expect(throws: ConfigError.invalidInFile(key: key, path: "/c", line: line, expected: expected)) { try Self.parse(file: file) }
    let error = ConfigError.invalidInFile(key: key, path: "/c", line: line, expected: expected)
    #expect(error.description == "Invalid value for option \(key) on line \(line) of /c: expected \(expected).")
  }

  /// Issue 27, finding 14: the keychain quota's options, their defaults and their bounds.
  @Test func keychainQuotaOptions() throws {
    #expect(Options().keychain.limits == KeychainLimits(maxItems: 1000, maxBytes: 16 * 1024 * 1024))
    let parsed = try Self.parse(file: "keychain_max_items = 50\nkeychain_max_bytes = 1048576\n")
    #expect(parsed.options.keychain.limits == KeychainLimits(maxItems: 50, maxBytes: 1_048_576))
    #expect(throws: ConfigError.invalid(key: "keychain_max_items", value: "0", expected: "a count from 1 to 100000")) {
      try Self.parse(file: "", ["keychain_max_items=0"])
    }
    #expect(throws: ConfigError.invalid(key: "keychain_max_bytes", value: "1024", expected: "a byte count from 65536 to 1073741824")) {
      try Self.parse(file: "", ["keychain_max_bytes=1024"])
    }
    #expect(Options().settingLines.contains("keychain_max_items=1000"))
  }

  @Test func aMalformedArgumentValueIsStillNamed() throws {
    #expect(throws: ConfigError.invalid(key: "timeout", value: "soon", expected: "seconds from 1 to 600")) {
      try Self.parse(file: "", ["timeout=soon"])
    }
  }

  @Test func nodelayIsAFlagThatIsOffByDefault() throws {
    #expect(Options().noDelay == false)
    #expect(try Self.parse(file: "nodelay\n").options.noDelay)
    #expect(try Self.parse(file: "nodelay\n", ["nodelay=no"]).options.noDelay == false)
    #expect(try Self.parse(file: "", ["nodelay"]).warnings.isEmpty)
    #expect(throws: ConfigError.invalid(key: "nodelay", value: "2", expected: "no value, or a boolean")) {
      try Self.parse(file: "", ["nodelay=2"])
    }
  }

  @Test("every path option takes an absolute path under 512 bytes, and names the same expectation")
  func pathOptionsShareOneRule() throws {
    let fine = "/" + String(repeating: "p", count: 510)
    for key in ["state_dir", "runtime_dir", "helper", "fprint_dir"] {
      #expect(try Self.parse(file: "", ["\(key)=\(fine)"]).warnings.isEmpty)
      for bad in ["var/lib", "", fine + "p"] {
        #expect(throws: ConfigError.invalid(key: key, value: bad, expected: "an absolute path")) {
          try Self.parse(file: "", ["\(key)=\(bad)"])
        }
      }
    }
    let options = try Self.parse(file: "fprint_dir = /f\nhelper = /h\n", ["state_dir=/s", "runtime_dir=/r"]).options
    #expect([options.stateDirectory, options.runtimeDirectory, options.helperPath, options.fprintDirectory] == ["/s", "/r", "/h", "/f"])
  }

  @Test("seconds, counts, yes-or-no and name lists keep their bounds and sentences")
  func rowKindsKeepTheirBounds() throws {
    let refused: [(String, String)] = [
      ("reuse_duration=300.5", "seconds from 0 to 300"), ("event_expiry=inf", "seconds from 1 to 3600"),
      ("idle_limit=-1", "seconds from 0 (off) to 31536000"), ("lockout_threshold=101", "a count from 1 to 100"),
      ("hash_cost=0", "a yescrypt cost from 1 to 11"), ("keychain_max_bytes=65535", "a byte count from 65536 to 1073741824"),
      ("passcode_after_reboot=maybe", "yes or no"), ("gui_services=a b", "PAM service names separated by commas"),
      ("terminal_programs=x,,y", "program names separated by commas"), ("login_secret=any", "userPresence or biometryCurrentSet"),
    ]
    for (argument, expected) in refused {
      let (key, value) = (String(argument.prefix { $0 != "=" }), String(argument.drop { $0 != "=" }.dropFirst()))
      #expect(throws: ConfigError.invalid(key: key, value: value, expected: expected)) { try Self.parse(file: "", [argument]) }
    }
    let options = try Self.parse(file: "", [
      "reuse_duration=300", "idle_limit=0", "lockout_threshold=100", "hash_cost=11", "keychain_max_bytes=65536",
      "passcode_after_reboot=no", "gui_services=", "unlock_services=a,b", "capture_authtok", "release_authtok=off",
    ]).options
    #expect(options.reuseDuration == 300 && options.evaluation.idleLimit == 0 && options.evaluation.lockoutThreshold == 100)
    #expect(options.evaluation.hasher == PasscodeHasher(cost: 11) && options.keychain.limits.maxBytes == 65536)
    #expect(!options.evaluation.passcodeAfterReboot && options.guiServices.isEmpty && options.unlockServices == ["a", "b"])
    #expect(options.keychain.captureAuthToken && !options.keychain.releaseAuthToken)
  }
}
