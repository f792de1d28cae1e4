import CSyscalls

// Part of the C fence (Syscalls.swift): glibc's utmp records, whose layout only the C header knows.

extension RemoteSession {
  /// The fields of glibc's `struct utmp` the detection needs, read from the file's bytes.
  struct UtmpRecord {
    var type: Int16
    var pid: Int32
    var line: String
    var host: String

    /// ut_type of a user's login (USER_PROCESS).
    static let userProcess = Int16(USER_PROCESS)

    /// Every whole record in `bytes`, in glibc's layout for this machine.
    static func records(in bytes: [UInt8]) -> [UtmpRecord] {
      let size = MemoryLayout<utmp>.size
      var result: [UtmpRecord] = []
      var start = 0
      while start + size <= bytes.count {
        var record = utmp()
        withUnsafeMutableBytes(of: &record) { destination in
          bytes.withUnsafeBytes { source in
            destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<(start + size)]))
          }
        }
        result.append(UtmpRecord(
          type: record.ut_type,
          pid: record.ut_pid,
          line: withUnsafeBytes(of: record.ut_line) { text($0) },
          host: withUnsafeBytes(of: record.ut_host) { text($0) }))
        start += size
      }
      return result
    }

    /// A fixed-size C field up to its first NUL.
    private static func text(_ field: UnsafeRawBufferPointer) -> String {
      String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }
  }
}
