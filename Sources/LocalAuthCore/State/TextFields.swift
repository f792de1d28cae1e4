/// Byte-wise splitting of the ASCII-structured state and queue files: the separators are ASCII, so splitting
/// the UTF-8 bytes gives the same pieces as splitting Characters, without grapheme breaking (which cost most
/// of the decoding time).
extension StringProtocol where SubSequence == Substring {
  /// The pieces between each `separator` byte, empty pieces included.
  func fields(separatedBy separator: UInt8) -> [Substring] {
    let bytes = utf8
    // Offsets of the separators, found in the contiguous UTF-8 storage (native strings always have it).
    let offsets = bytes.withContiguousStorageIfAvailable { buffer in
      buffer.indices.filter { buffer[$0] == separator }
    } ?? bytes.indices.filter { bytes[$0] == separator }.map { bytes.distance(from: bytes.startIndex, to: $0) }
    var pieces: [Substring] = []
    pieces.reserveCapacity(offsets.count + 1)
    var start = bytes.startIndex
    var consumed = 0
    for offset in offsets {
      let end = bytes.index(start, offsetBy: offset - consumed)
      pieces.append(self[start..<end])
      start = bytes.index(after: end)
      consumed = offset + 1
    }
    pieces.append(self[start..<bytes.endIndex])
    return pieces
  }

  /// The index of the first `byte`, if any.
  func firstIndex(ofByte byte: UInt8) -> Index? {
    utf8.firstIndex(of: byte)
  }

  /// Whether the text holds `byte`.
  func contains(byte: UInt8) -> Bool {
    utf8.contains(byte)
  }
}
