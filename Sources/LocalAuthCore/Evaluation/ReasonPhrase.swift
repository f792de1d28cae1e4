/// How a prompt line carries the caller's reason (docs/RULES.md, rule 4, "A reason reads naturally in every prompt").
///
/// Callers write reasons two ways. macOS completes "“App” is trying to <reason>", so its reasons are verb
/// phrases in lowercase ("unlock the vault"); iOS shows the reason as its own line under the app's name, so its
/// reasons are capitalised, often sentences ("Confirm your fingerprint to authenticate."). Every prompt that names
/// the reason joins it here, so that both read naturally, a sentence never gets a second period, and the caller's
/// letters are never changed.
///
/// Byte-level only (ASCII tests, UTF-8 suffixes), so it builds in Embedded Swift with the rest of the core.
package enum ReasonPhrase {
  /// A prompt line made of an instruction ("Place your finger on the sensor") and the caller's reason.
  ///
  /// The reason is trimmed of surrounding whitespace first. Then:
  /// - blank: the instruction alone, "Place your finger on the sensor.";
  /// - a lowercase verb phrase (it starts with a–z and does not end with `!` `?` `…`): after "to", "Place your
  ///   finger on the sensor to unlock the vault."; a single final period ("unlock the vault.") is dropped
  ///   rather than doubled;
  /// - anything else (a capital, a digit or another script first, or a question or exclamation): the reason as
  ///   its own sentence before the instruction, closed with a period when it has no closing punctuation:
  ///   "Confirm your fingerprint to authenticate. Place your finger on the sensor.", "Unlock the vault. Place
  ///   your finger on the sensor.", "Are you sure? Place your finger on the sensor."
  ///
  /// - Parameters:
  ///   - instruction: What the user must do, with no final punctuation.
  ///   - reason: The caller's `localizedReason`, the `reason=` option or the approved command.
  ///   - end: What closes the line: "." for a statement, ": " for a prompt that reads an answer.
  package static func line(_ instruction: String, reason: String, end: String = ".") -> String {
    var bytes = trimmed(Array(reason.utf8))
    if bytes.isEmpty { return instruction + end }
    if isLower(bytes[0]) {
      if isStrayPeriod(bytes) { bytes.removeLast() }
      if !endsSentence(bytes) { return instruction + " to " + String(decoding: bytes, as: UTF8.self) + end }
    }
    let sentence = String(decoding: bytes, as: UTF8.self) + (endsSentence(bytes) ? "" : ".")
    return sentence + " " + instruction + end
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

  /// A verb phrase closed by one period, "unlock the vault.": a single final "." (not "...").
  static func isStrayPeriod(_ bytes: [UInt8]) -> Bool {
    bytes.count >= 2 && bytes[bytes.count - 1] == 0x2E && bytes[bytes.count - 2] != 0x2E
  }

  static func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
}
