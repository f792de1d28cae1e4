/// The two /proc files the evaluation reads about each process of a caller's ancestry, parsed byte by byte: the
/// fields are ASCII, and splitting Characters (grapheme breaking, a String per field) cost a screen locker's cycle
/// more than reading the files did.
enum ProcessFile {
  /// /proc/PID/stat: "PID (COMM) STATE PPID PGRP SESSION TTY_NR TPGID …". COMM may hold spaces and ")", so it is
  /// what lies between the first "(" and the last ")".
  struct Stat {
    /// COMM, the command name.
    let name: String
    /// The fields after COMM, from STATE on (STATE is `numbers[0]`, PPID `numbers[1]`, …); as many as `count` asked,
    /// each nil when it is not a decimal number that fits.
    let numbers: [Int32?]

    /// Parses `bytes`, decoding the first `count` fields after COMM; nil without a name or with fewer fields.
    init?(_ bytes: [UInt8], count: Int) {
      guard let open = bytes.firstIndex(of: UInt8(ascii: "(")), let close = bytes.lastIndex(of: UInt8(ascii: ")")),
        open < close
      else { return nil }
      let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "), maxSplits: count)
      guard fields.count >= count else { return nil }
      name = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
      numbers = fields.prefix(count).map { ProcessFile.number($0) }
    }
  }

  /// The first number on the line of /proc/PID/status that starts with `key` ("Uid:", "TracerPid:"), after its blanks;
  /// nil when no line does or the value is not a decimal number that fits.
  static func statusNumber(_ key: StaticString, in bytes: [UInt8]) -> Int64? {
    let prefix = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
    var start = 0
    while start < bytes.count {
      let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
      if end - start >= prefix.count, bytes[start..<(start + prefix.count)].elementsEqual(prefix) {
        var first = start + prefix.count
        while first < end, bytes[first] == UInt8(ascii: "\t") || bytes[first] == UInt8(ascii: " ") { first += 1 }
        var last = first
        while last < end, bytes[last] != UInt8(ascii: "\t"), bytes[last] != UInt8(ascii: " ") { last += 1 }
        return wide(bytes[first..<last])
      }
      start = end + 1
    }
    return nil
  }

  /// `digits` as an Int32, or nil.
  static func number(_ digits: ArraySlice<UInt8>) -> Int32? { wide(digits).flatMap { Int32(exactly: $0) } }

  /// `digits` (an optional "-" and 1 to 18 decimal digits) as an Int64, or nil.
  static func decimal(_ digits: ArraySlice<UInt8>) -> Int64? { wide(digits) }

  /// "0x" and 1 to 16 hexadecimal digits as a UInt64, or nil (/proc/PID/syscall's arguments, /proc/PID/maps).
  static func hexadecimal(_ text: ArraySlice<UInt8>, prefixed: Bool = true) -> UInt64? {
    var rest = text[...]
    if prefixed {
      guard rest.starts(with: [UInt8(ascii: "0"), UInt8(ascii: "x")]) else { return nil }
      rest = rest.dropFirst(2)
    }
    guard !rest.isEmpty, rest.count <= 16 else { return nil }
    var value: UInt64 = 0
    for byte in rest {
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: return nil
      }
      value = value << 4 | UInt64(digit)
    }
    return value
  }

  /// `digits` (an optional "-" and 1 to 18 decimal digits) as an Int64, or nil.
  private static func wide(_ digits: ArraySlice<UInt8>) -> Int64? {
    var rest = digits[...]
    let negative = rest.first == UInt8(ascii: "-")
    if negative { rest = rest.dropFirst() }
    guard !rest.isEmpty, rest.count <= 18 else { return nil }
    var value: Int64 = 0
    for byte in rest {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      value = value * 10 + Int64(byte - UInt8(ascii: "0"))
    }
    return negative ? -value : value
  }
}
