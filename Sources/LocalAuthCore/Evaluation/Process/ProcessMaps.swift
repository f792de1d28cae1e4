/// /proc/PID/maps, read for what a process may run: its executable mappings.
enum ProcessMaps {
  /// One executable mapping: the file's device (as stat(2) encodes it), inode and path; inode 0 and the kernel's
  /// name ("[vdso]") or "" for memory no file backs.
  struct Mapping: Equatable {
    var device: UInt64
    var inode: UInt64
    var path: String
  }

  /// The mappings with execute permission, in the file's order. A line that cannot be parsed is returned as
  /// memory no file backs with its text as path, which no rule accepts.
  static func executableMappings(_ bytes: [UInt8]) -> [Mapping] {
    var found: [Mapping] = []
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
      // "START-END PERMS OFFSET MAJOR:MINOR INODE   PATH"; the path may hold spaces.
      let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
      guard fields.count >= 2 else { continue }
      let permissions = fields[1]
      guard permissions.count == 4 else {
        found.append(Mapping(device: 0, inode: 0, path: String(decoding: line, as: UTF8.self)))
        continue
      }
      guard permissions[permissions.startIndex + 2] == UInt8(ascii: "x") else { continue }
      guard fields.count >= 5, let device = device(fields[3]), let inode = ProcessFile.decimal(fields[4]), inode >= 0
      else {
        found.append(Mapping(device: 0, inode: 0, path: String(decoding: line, as: UTF8.self)))
        continue
      }
      var path = fields.count > 5 ? fields[5] : []
      while path.first == UInt8(ascii: " ") { path = path.dropFirst() }
      found.append(Mapping(device: device, inode: UInt64(inode), path: String(decoding: path, as: UTF8.self)))
    }
    return found
  }

  /// "MAJOR:MINOR" in hexadecimal as glibc's makedev encodes it in st_dev.
  static func device(_ field: ArraySlice<UInt8>) -> UInt64? {
    guard let colon = field.firstIndex(of: UInt8(ascii: ":")),
      let major = ProcessFile.hexadecimal(field[..<colon], prefixed: false),
      let minor = ProcessFile.hexadecimal(field[(colon + 1)...], prefixed: false)
    else { return nil }
    return (major & 0xFFF) << 8 | (major & ~0xFFF) << 32 | (minor & 0xFF) | (minor & ~0xFF) << 12
  }
}
