/// One user's keychain folder, `<state>/keychain/<user>/`: item files `item-<id>`, the device key `device.key`,
/// the passcode key pair `passcode.key`, and `.lock`. Root-only like the rest of the state folder, checked the
/// same way (FileSyscalls): no symbolic link followed, one name per file, owner root, no group or other write.
struct KeychainFolder {
  /// The state folder.
  let root: String
  /// The user whose keychain it is.
  let user: UserName
  /// Counts the item files read (`Keychain.itemReads`); nil counts nothing.
  var reads: KeychainReadCounter? = nil

  /// The keychain folder of all users.
  var keychainRoot: String { root + "/keychain" }
  /// This user's folder.
  var path: String { keychainRoot + "/" + user.value }

  /// Runs `body` under the user's keychain lock (bounded wait, `FileSyscalls.lockWaitSeconds`), creating the
  /// folders first.
  func locked<T>(_ body: () throws(KeychainError) -> T) throws(KeychainError) -> T {
    let lock = try keychainStorage { () throws(StateError) -> FileLock in
      try FileSyscalls.checkTrustedAncestors(of: root)
      try FileSyscalls.ensureDirectory(root)
      try FileSyscalls.ensureDirectory(keychainRoot)
      try FileSyscalls.ensureDirectory(path)
      return try FileSyscalls.lockExclusive(path + "/.lock")
    }
    defer { lock.release() }
    return try body()
  }

  /// True when the user's folder exists (checked as trusted).
  func exists() throws(KeychainError) -> Bool {
    try keychainStorage { () throws(StateError) -> Bool in
      try FileSyscalls.checkTrustedAncestors(of: root)
      do throws(StateError) {
        try FileSyscalls.checkTrustedDirectory(path)
      } catch .io(_, _, let code) where code == 2 {
        return false
      }
      return true
    }
  }

  /// A file of the folder; nil when it does not exist.
  func read(_ name: String, limit: Int = KeychainItem.maximumFileSize) throws(KeychainError) -> [UInt8]? {
    if name.hasPrefix("item-") { reads?.add() }
    return try keychainStorage { () throws(StateError) -> [UInt8]? in
      try FileSyscalls.readTrustedFile(path + "/" + name, limit: limit)
    }
  }

  /// The ids of the item files (`item-<id>`), sorted, without reading them.
  func itemIDs() throws(KeychainError) -> [String] {
    let names = try keychainStorage { () throws(StateError) -> [String] in try FileSyscalls.listDirectory(path) }
    return names.filter { $0.hasPrefix("item-") }.map { String($0.dropFirst(5)) }.sorted()
  }

  /// Replaces a file atomically (call under `locked`).
  func write(_ name: String, _ bytes: [UInt8]) throws(KeychainError) {
    try keychainStorage { () throws(StateError) in
      try FileSyscalls.atomicWrite(bytes, directory: path, name: name, temporaryName: "." + name + ".tmp")
    }
  }

  /// Appends to a trusted file of the folder, creating it when missing (call under `locked`).
  func append(_ name: String, _ bytes: [UInt8]) throws(KeychainError) {
    try keychainStorage { () throws(StateError) in try FileSyscalls.appendTrusted(bytes, path: path + "/" + name) }
  }

  /// What identifies a file's present content without reading it; nil when it is missing.
  func stamp(_ name: String) -> FileStamp? { FileSyscalls.stamp(path + "/" + name) }

  /// Removes a file; a missing one is not an error (call under `locked`).
  func remove(_ name: String) throws(KeychainError) {
    try keychainStorage { () throws(StateError) in try FileSyscalls.remove(path + "/" + name) }
  }

  /// Every item; a file that does not decode is skipped (it can never be opened) and reported in `unreadable`.
  func items() throws(KeychainError) -> (items: [KeychainItem], unreadable: [String]) {
    guard try exists() else { return ([], []) }
    let names = try keychainStorage { () throws(StateError) -> [String] in try FileSyscalls.listDirectory(path) }
    var items: [KeychainItem] = []
    var unreadable: [String] = []
    for name in names.sorted() where name.hasPrefix("item-") {
      let id = String(name.dropFirst(5))
      guard let bytes = try read(name) else { continue }
      if let item = KeychainItem.decode(bytes, id: id) { items.append(item) } else { unreadable.append(name) }
    }
    return (items, unreadable)
  }

  /// Writes an item under its id.
  func write(_ item: KeychainItem) throws(KeychainError) { try write("item-" + item.id, item.encoded()) }

  /// Removes an item.
  func remove(_ item: KeychainItem) throws(KeychainError) { try remove("item-" + item.id) }
}

/// How many item files a keychain has read: the add path's cost, which tests assert stays linear.
public final class KeychainReadCounter: @unchecked Sendable {
  private let lock = Mutex()
  private var count = 0

  /// A counter at zero.
  public init() {}

  /// The item files read so far.
  package var value: Int { lock.withLock { count } }

  func add() { lock.withLock { count += 1 } }
}
