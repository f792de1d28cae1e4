#if canImport(Glibc)
import Glibc
#endif
import LocalAuthCore

/// A fuzz target: arbitrary bytes in; it must not crash, and it traps when an invariant breaks.
enum FuzzTarget: String, CaseIterable {
  /// OptionParser: module arguments and a configuration file.
  case options
  /// StateCodec.decode, then a round trip through encode.
  case state
  /// localauth-helper's protocol: frames, then a whole caller stream played to the helper's service.
  case helper
  /// An app's session in localauth-helper: the calls after an app hello, on a socket that passes credentials.
  case app

  /// The target named by LOCALAUTH_FUZZ_TARGET (default: options).
  static let selected: FuzzTarget = {
    guard let raw = getenv("LOCALAUTH_FUZZ_TARGET") else { return .options }
    return FuzzTarget(rawValue: String(cString: raw)) ?? .options
  }()

  /// Runs one input.
  func run(_ bytes: [UInt8]) {
    switch self {
    case .options: Self.fuzzOptions(bytes)
    case .state: Self.fuzzState(bytes)
    case .helper: HelperFuzz.run(bytes)
    case .app: AppFuzz.run(bytes)
    }
  }

  /// Bytes before the first NUL are newline-separated module arguments; the rest is the configuration file.
  static func fuzzOptions(_ bytes: [UInt8]) {
    let split = bytes.firstIndex(of: 0)
    let argumentBytes = split.map { Array(bytes[..<$0]) } ?? []
    let fileBytes = split.map { Array(bytes[($0 + 1)...]) } ?? bytes
    let fileText = String(decoding: fileBytes, as: UTF8.self)
    var arguments = argumentBytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
      .map { String(decoding: $0, as: UTF8.self) }
    if !arguments.contains(where: { $0.hasPrefix("conf=") }) { arguments.insert("conf=/fuzz.conf", at: 0) }
    do {
      let parsed = try OptionParser.parse(arguments: arguments) { path in path == "/fuzz.conf" ? fileText : nil }
      check(parsed.options)
      precondition(parsed.warnings.count <= 2 * OptionParser.maximumEntries, "too many warnings")
    } catch {
      // A clear refusal (a ConfigError: the type says so) is the expected answer to most inputs.
    }
    do {
      let lines = try OptionParser.fileLines(fileText)
      precondition(lines.count <= OptionParser.maximumEntries, "fileLines returned too many lines")
    } catch {
      // Refused with a ConfigError, as the type says.
    }
  }

  /// The ranges every parsed option must respect, whatever the input.
  static func check(_ options: Options) {
    precondition((0...EvaluationRequest.maximumReuseDuration).contains(options.reuseDuration), "reuse_duration out of range")
    precondition((1...600).contains(options.evaluation.sensorTimeout), "timeout out of range")
    precondition((1...3600).contains(options.eventExpiry), "event_expiry out of range")
    precondition((1...100).contains(options.evaluation.lockoutThreshold), "lockout_threshold out of range")
    precondition((1...11).contains(options.evaluation.hasher.cost), "hash_cost out of range")
    precondition(options.stateDirectory.hasPrefix("/"), "state_dir not absolute")
    precondition(options.reason.map { !$0.isEmpty } ?? true, "empty reason accepted")
    precondition(options.feature.map(isValidItemName) ?? true, "bad feature accepted")
  }

  /// Decodes; whatever decodes must survive encode → decode unchanged.
  static func fuzzState(_ bytes: [UInt8]) {
    let path = "/fuzz/users/someone"
    let record: UserRecord
    do {
      record = try StateCodec.decode(bytes, path: path)
    } catch {
      precondition(error.description.contains(path), "a state error does not name the file")
      return
    }
    let encoded = StateCodec.encode(record)
    do {
      let again = try StateCodec.decode(encoded, path: path)
      precondition(again == record, "state round trip changed the record")
    } catch {
      fatalError("an encoded record does not decode: \(error)")
    }
  }
}
