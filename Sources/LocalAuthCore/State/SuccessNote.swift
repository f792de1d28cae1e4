/// The success note: `users/..success.<name>`, the fields the user's last successes changed, written beside the
/// record without waiting for the disk.
///
/// A write that only records a success (RecordDurability.swift) is most writes: every sudo with a finger. Its loss to
/// a power failure can only leave the user's earlier, stricter state, so the store writes it here with a rename and
/// no flush, instead of rewriting the record with two. Every whole-record write draws a new random serial into the
/// record; a note names the serial of the record it applies to.
///
/// Reading is the record, with the note's fields over it when the note is for this record (same serial) and only
/// records a success over it. Anything else a power failure or a crash can leave — no note, an empty or cut note,
/// the previous note, a note for an earlier record — is ignored, and reads as the record alone or an earlier
/// success: never more lenient than the truth. The record holds everything the user set (passcode, enrollment,
/// features) and is always written whole and flushed, so a note never loses it, and a damaged note never makes the
/// record unreadable. An I/O error reading the note is an error, like one reading the record.
package enum SuccessNote {
  /// The note's name in `users/`. A user name never starts with '.', so this is no user's record and no record's
  /// temporary file (`.<name>.tmp`).
  package static func name(of user: UserName) -> String { "..success." + user.value }

  /// The name its writer renames into place, fixed per user (the user's lock is held).
  static func temporaryName(of user: UserName) -> String { "..success-new." + user.value }

  /// A new serial for a whole-record write: 64 random bits from the system's generator.
  static func newSerial() -> String {
    var generator = SystemRandomNumberGenerator()
    return String(generator.next() as UInt64, radix: 16).leftPadded(to: 16)
  }

  /// What a note holds: the success fields of `record`, for the record written with `serial`.
  static func encode(_ record: UserRecord, serial: String) -> [UInt8] {
    StateCodec.encode(UserRecord().withSuccessFields(of: record), serial: serial)
  }

  /// `record` (written with `serial`) as the note's `bytes` leave it; the record alone when the note is missing,
  /// damaged, for another record, or more than a success over it.
  static func apply(_ bytes: [UInt8]?, path: String, to record: UserRecord, serial: String?) -> UserRecord {
    guard let bytes, let serial else { return record }
    var noteSerial: String?
    guard let note = try? StateCodec.decode(bytes, path: path, serial: &noteSerial), noteSerial == serial else {
      return record
    }
    let merged = record.withSuccessFields(of: note)
    return merged.onlyRecordsSuccess(over: record) ? merged : record
  }
}
