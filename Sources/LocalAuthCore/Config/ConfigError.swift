/// A configuration mistake: the module answers PAM_SERVICE_ERR and logs which key and why.
public enum ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A known key has a malformed or out-of-range value.
  case invalid(key: String, value: String, expected: String)
  /// A known key has a malformed or out-of-range value on a configuration file's line; the value is not
  /// repeated (the file may be one that holds a secret).
  case invalidInFile(key: String, path: String, line: Int, expected: String)
  /// A key that needs a value has none, or a flag was given a value.
  case missingValue(key: String)
  /// The file named by `conf=` could not be read.
  case unreadable(path: String, reason: String)
  /// Too many arguments or lines, or a line that is too long.
  case tooLarge(what: String)

  public var description: String {
    switch self {
    case .invalid(let key, let value, let expected):
      "Invalid value \"\(value.prefix(64))\" for option \(key): expected \(expected)."
    case .invalidInFile(let key, let path, let line, let expected):
      "Invalid value for option \(key) on line \(line) of \(path): expected \(expected)."
    case .missingValue(let key): "Option \(key) needs a value."
    case .unreadable(let path, let reason): "Cannot read configuration file \(path): \(reason)."
    case .tooLarge(let what): "The configuration is too large: \(what)."
    }
  }
}
