/// How a prompt line carries the caller's reason (docs/RULES.md, rule 4, "A reason reads naturally in every prompt").
///
/// Callers write reasons two ways. macOS completes "“App” is trying to <reason>", so its reasons are verb
/// phrases ("unlock the vault"); iOS shows the reason as its own line under the app's name, so its reasons are
/// often sentences ("Confirm your fingerprint to authenticate."). Every prompt that names the reason joins it
/// here, so that both read naturally and a sentence never gets a second period.
///
/// Byte-level only (ASCII case changes, UTF-8 suffixes), so it builds in Embedded Swift with the rest of the core.
public enum ReasonPhrase {
  /// A prompt line made of an instruction ("Place your finger on the sensor") and the caller's reason.
  ///
  /// The reason is trimmed of surrounding whitespace first. Then:
  /// - blank: the instruction alone, "Place your finger on the sensor.";
  /// - a sentence (it ends with `.` `!` `?` `…` or their full-width forms): the reason as written, as its own
  ///   sentence before the instruction, "Confirm your fingerprint to authenticate. Place your finger on the sensor.";
  /// - otherwise a verb phrase after "to": "Place your finger on the sensor to unlock the vault.", its first
  ///   letter lowercased when its first word is an ordinary capitalised word ("Unlock" → "unlock"; "SSH",
  ///   "iCloud" and "I" stay). A single closing period after a lowercase start ("unlock the vault.") is dropped
  ///   rather than doubled.
  ///
  /// - Parameters:
  ///   - instruction: What the user must do, with no final punctuation.
  ///   - reason: The caller's `localizedReason`, the `reason=` option or the approved command.
  ///   - end: What closes the line: "." for a statement, ": " for a prompt that reads an answer.
  public static func line(_ instruction: String, reason: String, end: String = ".") -> String {
    var bytes = trimmed(Array(reason.utf8))
    if bytes.isEmpty { return instruction + end }
    if isStrayPeriod(bytes) { bytes.removeLast() }
    if endsSentence(bytes) { return String(decoding: bytes, as: UTF8.self) + " " + instruction + end }
    if startsWithOrdinaryCapital(bytes) { bytes[0] += 0x20 }
    return instruction + " to " + String(decoding: bytes, as: UTF8.self) + end
  }

  /// `bytes` without leading and trailing spaces, tabs and line breaks.
  static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
    guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
    else { return [] }
    return Array(bytes[first...last])
  }

  /// The UTF-8 endings of a sentence: ". ! ?", "…" (U+2026) and the full-width "。！？".
  static let sentenceEndings: [[UInt8]] = [
    [0x2E], [0x21], [0x3F], [0xE2, 0x80, 0xA6], [0xE3, 0x80, 0x82], [0xEF, 0xBC, 0x81], [0xEF, 0xBC, 0x9F],
  ]

  /// True when `bytes` ends with sentence punctuation.
  static func endsSentence(_ bytes: [UInt8]) -> Bool {
    sentenceEndings.contains { ending in bytes.count >= ending.count && Array(bytes.suffix(ending.count)) == ending }
  }

  /// A verb phrase closed by one period, "unlock the vault.": lowercase start, a single final "." (not "...").
  static func isStrayPeriod(_ bytes: [UInt8]) -> Bool {
    guard bytes.count >= 2, bytes[bytes.count - 1] == 0x2E, bytes[bytes.count - 2] != 0x2E else { return false }
    return isLower(bytes[0])
  }

  /// True when the first word starts with A–Z and has no other capital letter, and is not the pronoun "I".
  static func startsWithOrdinaryCapital(_ bytes: [UInt8]) -> Bool {
    guard let first = bytes.first, isUpper(first) else { return false }
    let word = bytes.prefix { $0 != 0x20 && $0 != 0x09 }
    if first == UInt8(ascii: "I") && (word.count == 1 || word.dropFirst().first == UInt8(ascii: "'")) { return false }
    return !word.dropFirst().contains(where: isUpper)
  }

  static func isUpper(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
  static func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
}
