/// The state folder: one versioned file per user, written atomically, changed under a per-user flock.
///
/// Layout: `<root>/users/<name>` (records), `<root>/users/..success.<name>` (the last successes, SuccessNote.swift),
/// `<root>/locks/<name>` (flock targets, since a rename replaces the record's inode), `<root>/sensor/<name>/` (the
/// simulated sensor's queue). Every folder and file must be owned by root and not writable by group or others, and
/// so must every folder above the state folder unless sticky (TrustedAncestors.swift); nothing follows a symbolic
/// link, and a record has one name.
package final class FileStateStore: StateStore {
  /// The state folder.
  package let root: String

  /// Creates a store over `root` (default /var/lib/localauth).
  package init(root: String = FileStateStore.defaultRoot) { self.root = root }

  /// The last record decoded in this process, with the exact bytes it came from. Every read still reads and
  /// checks the file (under the lock in `update`); only when the bytes are identical, compared in full, is
  /// decoding them again skipped: decoding is a function of the bytes alone, so the result is the same. A
  /// successful authentication (lock-free load, then the locked read-modify-write) decodes the record once, and a
  /// display manager or login loop that authenticates again with an unchanged record decodes it not at all.
  /// It holds one record (what the file holds, readable by root only), in processes that run as root.
  nonisolated(unsafe) private static var lastDecoded: (path: String, bytes: [UInt8], record: UserRecord, serial: String?)?
  private static let lastDecodedLock = Mutex()

  /// The default state folder.
  package static let defaultRoot = "/var/lib/localauth"

  var usersDirectory: String { root + "/users" }
  var locksDirectory: String { root + "/locks" }

  /// The path of a user's record.
  package func recordPath(_ user: UserName) -> String { usersDirectory + "/" + user.value }

  package func load(_ user: UserName) throws(LocalAuthError) -> UserRecord? {
    do {
      guard try checkLayout(creating: false) else { return nil }
      return try read(user)?.current
    } catch {
      throw .state(error)
    }
  }

  package func modify(_ user: UserName, _ body: (inout UserRecord) throws(LocalAuthError) -> Void) throws(LocalAuthError) {
    var refusal: LocalAuthError?
    do throws(StateError) {
      _ = try checkLayout(creating: true)
      let lock = try FileSyscalls.lockExclusive(locksDirectory + "/" + user.value)
      defer { lock.release() }
      let stored = try read(user)
      let original = stored?.current
      var record = original ?? UserRecord()
      do { try body(&record) } catch { refusal = error }
      if refusal == nil, record != original {
        if let stored, let serial = stored.serial, let original, record.onlyRecordsSuccess(over: original) {
          // SuccessNote.swift: a success need not wait for the disk; its loss leaves the stricter state.
          try FileSyscalls.atomicWrite(
            SuccessNote.encode(record, serial: serial), directory: usersDirectory, name: SuccessNote.name(of: user),
            temporaryName: SuccessNote.temporaryName(of: user), flushFolder: false, flushFile: false)
        } else {
          try FileSyscalls.atomicWrite(
            StateCodec.encode(record, serial: SuccessNote.newSerial()), directory: usersDirectory, name: user.value,
            temporaryName: "." + user.value + ".tmp")
          // The note names the replaced record's serial, so it no longer applies; removed to keep the folder tidy.
          if stored?.noted == true { try? FileSyscalls.remove(usersDirectory + "/" + SuccessNote.name(of: user)) }
        }
      }
    } catch {
      throw .state(error)
    }
    if let refusal { throw refusal }
  }

  package func remove(_ user: UserName) throws(LocalAuthError) {
    do {
      guard try checkLayout(creating: false) else { return }
      let lock = try FileSyscalls.lockExclusive(locksDirectory + "/" + user.value)
      defer { lock.release() }
      try FileSyscalls.remove(recordPath(user))
      try FileSyscalls.remove(usersDirectory + "/" + SuccessNote.name(of: user))
    } catch {
      throw .state(error)
    }
  }

  package func users() throws(LocalAuthError) -> [UserName] {
    do {
      guard try checkLayout(creating: false) else { return [] }
      return try FileSyscalls.listDirectory(usersDirectory).compactMap { name in
        name.hasPrefix(".") ? nil : try? UserName(name)
      }
    } catch {
      throw .state(error)
    }
  }

  /// A record as stored: the record file, its serial, and the record as its success note leaves it.
  private struct StoredRecord {
    var serial: String?
    var current: UserRecord
    /// Whether a note file was there (applying or not).
    var noted: Bool
  }

  private func read(_ user: UserName) throws(StateError) -> StoredRecord? {
    let path = recordPath(user)
    guard let bytes = try FileSyscalls.readTrustedFile(path, limit: StateCodec.maximumSize) else { return nil }
    let decoded: (record: UserRecord, serial: String?)
    if let last = Self.lastDecodedLock.withLock({ Self.lastDecoded }), last.path == path, last.bytes == bytes {
      decoded = (last.record, last.serial)
    } else {
      var serial: String?
      let record = try StateCodec.decode(bytes, path: path, serial: &serial)
      Self.lastDecodedLock.withLock { Self.lastDecoded = (path, bytes, record, serial) }
      decoded = (record, serial)
    }
    // The note's damage is ignored (SuccessNote.swift); an I/O error or an unsafe file is not.
    let notePath = usersDirectory + "/" + SuccessNote.name(of: user)
    let note: [UInt8]?
    do {
      note = try FileSyscalls.readTrustedFile(notePath, limit: StateCodec.maximumSize)
    } catch .tooLarge {
      note = []
    }
    return StoredRecord(
      serial: decoded.serial, current: SuccessNote.apply(note, path: notePath, to: decoded.record, serial: decoded.serial),
      noted: note != nil)
  }

  /// Checks (or creates) the folders; false when the state folder does not exist and `creating` is false.
  /// The folders above the state folder are checked first, at every call (a few lstat calls).
  private func checkLayout(creating: Bool) throws(StateError) -> Bool {
    try FileSyscalls.checkTrustedAncestors(of: root)
    if creating {
      try FileSyscalls.ensureDirectory(root)
      try FileSyscalls.ensureDirectory(usersDirectory)
      try FileSyscalls.ensureDirectory(locksDirectory)
      return true
    }
    do {
      try FileSyscalls.checkTrustedDirectory(root)
    } catch .io(_, _, let code) where code == 2 {
      return false
    }
    do {
      try FileSyscalls.checkTrustedDirectory(usersDirectory)
    } catch .io(_, _, let code) where code == 2 {
      return false
    }
    return true
  }
}
