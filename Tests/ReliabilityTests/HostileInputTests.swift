import Glibc
import LocalAuthCore
import LocalAuthTestSupport
import LocalAuthTesting
import Testing

/// Hostile passcodes, module arguments and configuration files: a clear answer, in bounded work.
@Suite(.serialized)
struct HostileInputTests {
  @Test func hostilePasscodesAreRefusedBeforeHashing() throws {
    let world = try PrimedWorld(store: InMemoryStateStore())
    var settings = world.settings
    settings.hasher = PasscodeHasher()  // (a check rehashes with the stored hash's own parameters)
    let evaluator = { (answer: [UInt8]) in
      PolicyEvaluator(
        dependencies: Dependencies(
          clock: world.clock, store: world.store, sensor: AbsentSensor(), prompter: FaultyPrompter(answer: answer), log: NullLog()),
        settings: settings)
    }
    let mebibyte = [UInt8](repeating: UInt8(ascii: "7"), count: 1 << 20)
    let cases: [(String, [UInt8], Int)] = [
      ("0 bytes", [], 0),
      ("1 MiB", mebibyte, 0),
      ("one byte over the length limit", [UInt8](repeating: UInt8(ascii: "7"), count: SecretBytes.maximumLength + 1), 0),
      ("embedded NUL", Array("12".utf8) + [0] + Array("34".utf8), 0),
      ("invalid UTF-8", [0xC3, 0x28, 0xFF, 0xFE], 1),
      ("an ordinary wrong passcode", Array("4321".utf8), 1),
    ]
    var lines: [String] = []
    for (label, answer, hashes) in cases {
      let began = monotonicSeconds()
      let (outcome, work) = try HashWork.shared.measure { try evaluator(answer).evaluate(world.request(.deviceOwnerAuthentication)) }
      let elapsed = monotonicSeconds() - began
      #expect(!outcome.isSuccess, "\(label)")
      #expect(work.count == hashes, "\(label): \(work.count) yescrypt computations, expected \(hashes)")
      lines.append("\(label) \(work.count) hash\(work.count == 1 ? "" : "es") in \(Int(elapsed * 1000)) ms")
      if hashes == 0 { #expect(elapsed < 0.5, "\(label) took \(elapsed) s") }
    }
    // The hasher itself refuses what the evaluator never passes it.
    let began = monotonicSeconds()
    #expect(throws: PasscodeError.tooLong) { try PasscodeHasher().hash(SecretBytes(mebibyte)) }
    #expect(throws: PasscodeError.containsNUL) { try PasscodeHasher().hash(SecretBytes([0x31, 0, 0x32])) }
    #expect(monotonicSeconds() - began < 0.5)
    report("hostile input: passcodes: " + lines.joined(separator: "; "))
  }

  /// Parses `arguments` with `file` as the configuration file's text.
  static func parse(_ arguments: [String], file: String? = nil) throws -> OptionParser.Parsed {
    try OptionParser.parse(arguments: ["conf=/test.conf"] + arguments) { $0 == "/test.conf" ? (file ?? "") : nil }
  }

  @Test func hostileArgumentsAndFilesGetAClearError() throws {
    let huge = String(repeating: "x", count: 1 << 20)
    let refused: [(String, [String], String?, ConfigError)] = [
      ("257 arguments", Array(repeating: "debug", count: 257), nil, .tooLarge(what: "more than 256 arguments")),
      ("a 1 MiB argument", ["reason=" + huge], nil, .tooLarge(what: "an entry longer than 1024 bytes")),
      ("a 1 MiB file", [], huge, .tooLarge(what: "file larger than 65536 bytes")),
      ("257 lines", [], String(repeating: "debug\n", count: 257), .tooLarge(what: "more than 256 lines")),
      ("a 2 KiB line", [], "reason=" + String(repeating: "y", count: 2048), .tooLarge(what: "an entry longer than 1024 bytes")),
      ("empty policy", ["policy="], nil, .invalid(key: "policy", value: "", expected: "deviceOwnerAuthentication or deviceOwnerAuthenticationWithBiometrics")),
      ("policy without value", ["policy"], nil, .missingValue(key: "policy")),
      ("timeout nan", ["timeout=nan"], nil, .invalid(key: "timeout", value: "nan", expected: "seconds from 1 to 600")),
      ("timeout 1e400", ["timeout=1e400"], nil, .invalid(key: "timeout", value: "1e400", expected: "seconds from 1 to 600")),
      ("timeout -1", ["timeout=-1"], nil, .invalid(key: "timeout", value: "-1", expected: "seconds from 1 to 600")),
      ("reuse 301", ["reuse_duration=301"], nil, .invalid(key: "reuse_duration", value: "301", expected: "seconds from 0 to 300")),
      ("hash cost 0", ["hash_cost=0"], nil, .invalid(key: "hash_cost", value: "0", expected: "a yescrypt cost from 1 to 11")),
      ("hash cost huge", ["hash_cost=99999999999999999999"], nil, .invalid(key: "hash_cost", value: "99999999999999999999", expected: "a yescrypt cost from 1 to 11")),
      ("debug=maybe", ["debug=maybe"], nil, .invalid(key: "debug", value: "maybe", expected: "no value, or a boolean")),
      ("relative state_dir", ["state_dir=var/lib"], nil, .invalid(key: "state_dir", value: "var/lib", expected: "an absolute path")),
      ("feature with a slash", ["feature=../x"], nil, .invalid(key: "feature", value: "../x", expected: "a feature name of letters, digits, '.', '_' or '-'")),
      ("bad value in the file", [], "lockout_threshold = 0\n", .invalidInFile(key: "lockout_threshold", path: "/test.conf", line: 1, expected: "a count from 1 to 100")),
      ("NUL in a value", ["timeout=5\u{0}0"], nil, .invalid(key: "timeout", value: "5\u{0}0", expected: "seconds from 1 to 600")),
    ]
    let began = monotonicSeconds()
    for (label, arguments, file, expected) in refused {
      #expect(throws: expected, "\(label)") { try Self.parse(arguments, file: file) }
      #expect(!expected.description.isEmpty && expected.description.utf8.count < 300, "\(label): \(expected.description)")
    }
    // Malformed but harmless: unknown keys are reported (capped) and ignored; duplicates apply in order, last wins.
    let noisy = try Self.parse(["no-such-option", String(repeating: "k", count: 1000) + "=1", "=", "=value"], file: "\u{FF}\u{FE}junk\n\n   \n#c\n")
    #expect(noisy.warnings.count == 5 && noisy.warnings.allSatisfy { $0.utf8.count < 200 }, "\(noisy.warnings)")
    #expect(noisy.options == Options(), "unknown keys changed options")
    let duplicated = try Self.parse(["policy=biometrics", "policy=deviceOwner", "timeout=5", "timeout=7"], file: "timeout=3\ntimeout=4\n")
    #expect(duplicated.options.policy == .deviceOwnerAuthentication && duplicated.options.evaluation.sensorTimeout == 7)
    let crlf = try Self.parse([], file: "timeout = 9\r\nreuse_duration=\"10\"\r\n")
    #expect(crlf.options.evaluation.sensorTimeout == 9 && crlf.options.reuseDuration == 10)
    #expect(throws: ConfigError.unreadable(path: "/missing.conf", reason: "it does not exist")) {
      try OptionParser.parse(arguments: ["conf=/missing.conf"]) { _ in nil }
    }
    #expect(throws: ConfigError.invalid(key: "conf", value: "relative.conf", expected: "an absolute path")) {
      try OptionParser.parse(arguments: ["conf=relative.conf"]) { _ in nil }
    }
    let elapsed = monotonicSeconds() - began
    #expect(elapsed < 5, "parsing hostile configuration took \(elapsed) s")
    report("hostile input: \(refused.count) huge, malformed or out-of-range arguments and files refused with a ConfigError, unknown and duplicated keys handled, in \(formatSeconds(elapsed)) s")
  }

  @Test func configurationFilesAreReadSafely() throws {
    let folder = TemporaryFolder("conf")
    let read = ConfigFileReader.read
    let path = folder.path + "/localauth.conf"
    writeWhole(path, Array("timeout=5\n".utf8), mode: 0o644)
    #expect(try OptionParser.parse(arguments: ["conf=" + path], readFile: read).options.evaluation.sensorTimeout == 5)
    let cases: [(String, () -> Void, String)] = [
      ("group-writable", { _ = chmod(path, 0o664) }, "writable by group or others"),
      ("owned by nobody", { _ = chown(path, nobodyUID, 0) }, "owned by uid"),
      ("a symbolic link", { unlink(path); _ = symlink("/etc/passwd", path) }, "symbolic link"),
      ("larger than 64 KiB", { writeWhole(path, [UInt8](repeating: 0x23, count: OptionParser.maximumFileSize + 1), mode: 0o644) }, "larger than"),
      ("a FIFO", { unlink(path); _ = mkfifo(path, 0o600) }, "not a regular file"),
    ]
    for (label, tamper, reason) in cases {
      unlink(path)
      writeWhole(path, Array("timeout=5\n".utf8), mode: 0o644)
      tamper()
      do {
        _ = try OptionParser.parse(arguments: ["conf=" + path], readFile: read)
        Issue.record("\(label): accepted")
      } catch {
        guard case .unreadable(let named, let why) = error else {
          Issue.record("\(label): \(error)")
          continue
        }
        #expect(named == path && why.contains(reason), "\(label): \(error)")
        #expect(!why.contains("state file") && error.description.hasPrefix("Cannot read configuration file \(path): it "), "\(label): \(error)")
      }
    }
  }

  @Test func theFuzzTargetsSurviveRandomInputsWithoutLibFuzzer() throws {
    // The same targets `make fuzz` runs under libFuzzer, driven by a seeded random mutator in the normal build.
    var lines: [String] = []
    for (target, count) in [("options", 20_000), ("state", 50_000), ("app", 5_000)] {
      let began = monotonicSeconds()
      let child = ChildProcess.start(helperPath(), ["mutate", target, String(count), "2026"])
      let output = child.readRest()
      #expect(child.wait() == .exited(0), "\(target): \(output.suffix(500))")
      #expect(output.contains("tried \(count) inputs"))
      lines.append("\(count) \(target) inputs in \(formatSeconds(monotonicSeconds() - began)) s")
    }
    report("hostile input: random-mutation fuzzing (debug build, no libFuzzer): " + lines.joined(separator: ", ") + ", 0 crashes")
  }
}
