/// The domain state of the prints a reader keeps (fprintd's folder of a user): a digest of every print file's
/// path and bytes, which changes when a finger is added, removed or enrolled again.
///
/// fprintd's print files are root's and unreadable to users, so a user cannot forge the digest; the
/// finger list alone (ListEnrolledFingers) would miss a finger enrolled again under the same name.
package enum PrintsDigest {
  /// The most files, levels and bytes read: fprintd keeps `<user>/<driver>/<device>/<finger>`.
  static let maximumFiles = 64
  static let maximumDepth = 4
  static let maximumFileSize = 1 << 20

  /// The digest of the files under `folder`, or nil when it holds none (or cannot be read).
  package static func of(folder: String) -> String? {
    var files: [(String, [UInt8])] = []
    collect(folder, relative: "", depth: 0, into: &files)
    guard !files.isEmpty else { return nil }
    // Two 64-bit FNV-1a sums with different offsets: 128 bits, enough that a new print never gives an old digest.
    var a: UInt64 = 0xcbf2_9ce4_8422_2325
    var b: UInt64 = 0x6c62_272e_07bb_0142
    func mix(_ byte: UInt8) {
      a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
      b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    for (path, bytes) in files.sorted(by: { $0.0 < $1.0 }) {
      for byte in path.utf8 { mix(byte) }
      mix(0)
      for byte in bytes { mix(byte) }
      mix(0xff)
    }
    return "fp-" + hex(a) + hex(b)
  }

  private static func collect(_ path: String, relative: String, depth: Int, into files: inout [(String, [UInt8])]) {
    guard depth <= maximumDepth, files.count < maximumFiles else { return }
    guard let names = try? FileSyscalls.listDirectory(path) else { return }
    for name in names.sorted() where files.count < maximumFiles {
      let child = path + "/" + name
      // Nothing is followed through a symbolic link.
      guard case .success(let status) = Syscalls.status(ofPath: child) else { continue }
      switch status.kind {
      case .directory: collect(child, relative: relative + "/" + name, depth: depth + 1, into: &files)
      case .regular:
        if let bytes = try? readSmallFile(child, limit: maximumFileSize) { files.append((relative + "/" + name, bytes)) }
      default: continue
      }
    }
  }

  private static func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}
