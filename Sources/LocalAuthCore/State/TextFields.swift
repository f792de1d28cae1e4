/// Byte-wise splitting of the ASCII-structured state and queue files: the separators are ASCII, so splitting
/// the UTF-8 bytes gives the same pieces as splitting Characters, without grapheme breaking (which cost most
/// of the decoding time).
///
/// Every scan runs over the text's contiguous UTF-8 (`Substring.withUTF8`) by integer offset: in Embedded Swift
/// the UTF-8 view's subscript is a call per byte, which made these scans most of a record's decoding. Only the
/// pieces' bounds are turned into string indices.
extension StringProtocol where SubSequence == Substring {
  /// The pieces between each `separator` byte, empty pieces included.
  func fields(separatedBy separator: UInt8) -> [Substring] {
    let text = self[...]
    let offsets = Self.offsets(of: separator, in: text, first: false)
    var pieces: [Substring] = []
    pieces.reserveCapacity(offsets.count + 1)
    let bytes = text.utf8
    var start = bytes.startIndex
    var consumed = 0
    for offset in offsets {
      let end = bytes.index(start, offsetBy: offset - consumed)
      pieces.append(text[start..<end])
      start = bytes.index(after: end)
      consumed = offset + 1
    }
    pieces.append(text[start..<bytes.endIndex])
    return pieces
  }

  /// The index of the first `byte`, if any.
  func firstIndex(ofByte byte: UInt8) -> Index? {
    let text = self[...]
    guard let offset = Self.offsets(of: byte, in: text, first: true).first else { return nil }
    return text.utf8.index(text.utf8.startIndex, offsetBy: offset)
  }

  /// Whether the text holds `byte`.
  func contains(byte: UInt8) -> Bool {
    !Self.offsets(of: byte, in: self[...], first: true).isEmpty
  }

  /// How many times the text holds `byte`.
  func count(ofByte byte: UInt8) -> Int {
    var text = self[...]
    return text.withUTF8 { buffer in
      var found = 0
      for value in buffer where value == byte { found += 1 }
      return found
    }
  }

  /// The UTF-8 offsets of `byte` in `text` (only the first when `first`).
  private static func offsets(of byte: UInt8, in text: Substring, first: Bool) -> [Int] {
    var text = text
    return text.withUTF8 { buffer in
      var found: [Int] = []
      for offset in 0..<buffer.count where buffer[offset] == byte {
        found.append(offset)
        if first { break }
      }
      return found
    }
  }
}
