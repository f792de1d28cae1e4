/// Parses `key=value` arguments and configuration-file lines into `Options`, pam_unix-style.
///
/// Defaults, then the `conf=` file (or the default file, which may be missing), then the arguments, all
/// through one table. A malformed value of a known key is an error; an unknown key is reported and ignored.
package enum OptionParser {
  /// The most arguments or file lines accepted.
  package static let maximumEntries = 256
  /// The longest argument or line accepted.
  package static let maximumEntryLength = 1024
  /// The largest configuration file accepted.
  package static let maximumFileSize = 64 * 1024

  /// The result of parsing: options and the unknown keys that were ignored.
  package struct Parsed: Equatable, Sendable {
    /// The options.
    package var options: Options
    /// Warnings to log, one sentence each.
    package var warnings: [String]
  }

  /// Parses module arguments; `readFile` returns a file's text or nil when it does not exist.
  package static func parse(
    arguments: [String], readFile: (String) throws(ConfigFileProblem) -> String?
  ) throws(ConfigError) -> Parsed {
    guard arguments.count <= maximumEntries else { throw .tooLarge(what: "more than \(maximumEntries) arguments") }
    var options = Options()
    var warnings: [String] = []
    let explicit = arguments.last(where: { $0.hasPrefix("conf=") }).map { String($0.dropFirst(5)) }
    let path = explicit ?? Options.defaultConfigPath
    if explicit == "" { throw .invalid(key: "conf", value: "", expected: OptionSpec.absolutePathExpected) }
    if let explicit, !explicit.hasPrefix("/") {
      throw .invalid(key: "conf", value: explicit, expected: OptionSpec.absolutePathExpected)
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
  package static func fileLines(_ text: String) throws(ConfigError) -> [String] { try numberedFileLines(text).map { $0.text } }

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

  /// A flag's value: 1, true, yes or on; 0, false, no or off; nil for anything else.
  static func boolean(_ value: String) -> Bool? {
    switch value {
    case "1", "true", "yes", "on": true
    case "0", "false", "no", "off": false
    default: nil
    }
  }
}
