/// Text from the outside (a process's name, a path, a host, a service) made safe for a log line, a state file or a
/// prompt: the one place where such text is cut and its unprintable bytes replaced.
package enum LogText {
  /// `text` as a token: printable ASCII without spaces, at most `limit` bytes; any other byte becomes "?".
  package static func token(_ text: String, limit: Int = 64) -> String {
    let bytes = text.utf8.prefix(limit)
    if bytes.count == text.utf8.count, bytes.allSatisfy(isTokenByte) { return text }
    return String(decoding: bytes.map { isTokenByte($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
  }

  /// `text` as one line: printable ASCII with spaces, at most `limit` bytes; any other byte becomes "?".
  package static func line(_ text: String, limit: Int = 200) -> String {
    let bytes = text.utf8.prefix(limit)
    if bytes.count == text.utf8.count, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
    return String(decoding: bytes.map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
  }

  private static func isTokenByte(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }
}
