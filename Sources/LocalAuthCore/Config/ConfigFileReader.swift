/// Why a configuration file was not read; its description is the reason alone, for `ConfigError.unreadable`.
public struct ConfigFileProblem: Error, Equatable, Sendable, CustomStringConvertible {
  /// The reason, as a clause: "it is owned by uid 1000, not root".
  public var description: String
}

/// Reads configuration files the safe way (pam-u2f's `open_safely`): no symbolic link, a regular file owned
/// by root and not writable by group or others, at most `OptionParser.maximumFileSize` bytes.
public enum ConfigFileReader {
  /// The file's text, or nil when it does not exist; suitable as `OptionParser.parse`'s `readFile`.
  package static func read(_ path: String) throws(ConfigFileProblem) -> String? {
    do {
      return try FileSyscalls.readTrustedFile(path, limit: OptionParser.maximumFileSize)
        .map { String(decoding: $0, as: UTF8.self) }
    } catch {
      throw ConfigFileProblem(description: error.clause)
    }
  }
}
