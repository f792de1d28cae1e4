/// The state folder: one versioned file per user, written atomically, changed under a per-user flock.
///
/// Layout: `<root>/users/<name>` (records), `<root>/locks/<name>` (flock targets, since a rename
/// replaces the record's inode), `<root>/sensor/<name>/` (the simulated sensor's queue). Every folder and
/// file must be owned by root and not writable by group or others, and so must every folder above the state
/// folder unless sticky (TrustedAncestors.swift); nothing follows a symbolic link, and a record has one name.
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
  nonisolated(unsafe) private static var lastDecoded: (path: String, bytes: [UInt8], record: UserRecord)?
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
      return try read(user)
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
      let original = try read(user)
      var record = original ?? UserRecord()
      do { try body(&record) } catch { refusal = error }
      if refusal == nil, record != original {
        // RecordDurability.swift: a write that only records a success need not wait for the folder's flush.
        let flushFolder = !(original.map { record.onlyRecordsSuccess(over: $0) } ?? false)
        try FileSyscalls.atomicWrite(
          StateCodec.encode(record), directory: usersDirectory, name: user.value, temporaryName: "." + user.value + ".tmp",
          flushFolder: flushFolder)
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

  private func read(_ user: UserName) throws(StateError) -> UserRecord? {
    let path = recordPath(user)
    guard let bytes = try FileSyscalls.readTrustedFile(path, limit: StateCodec.maximumSize) else { return nil }
    if let last = Self.lastDecodedLock.withLock({ Self.lastDecoded }), last.path == path, last.bytes == bytes {
      return last.record
    }
    let record = try StateCodec.decode(bytes, path: path)
    Self.lastDecodedLock.withLock { Self.lastDecoded = (path, bytes, record) }
    return record
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
