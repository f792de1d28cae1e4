/// A keychain's memory of each user's index and items' attributes, so that a call costs the same with 10,000
/// items as with 10 (issue 28): valid while the user's `.index` keeps the stamp it had (every change by any
/// process appends to it or replaces it); otherwise reloaded. Queries pick their candidates here and read only
/// those items' files, which decide (a file changed behind the index is read as it is now).
final class KeychainCache: @unchecked Sendable {
  /// One user's keychain as last seen.
  struct Snapshot {
    /// The `.index` stamp this snapshot matches.
    var stamp: FileStamp
    /// The index.
    var index: KeychainIndex
    /// Each item's attributes (its sealed data left out), by id; nil until a query needs them.
    var items: [String: KeychainItem]?
    /// The ids of each account's items.
    var byAccount: [String: [String]] = [:]

    /// Records an item's attributes.
    mutating func setItem(_ item: KeychainItem) {
      guard items != nil else { return }
      removeItem(item.id)
      var attributes = item
      attributes.sealed = []
      items?[item.id] = attributes
      byAccount[item.account, default: []].append(item.id)
    }

    /// Forgets an item.
    mutating func removeItem(_ id: String) {
      guard let old = items?.removeValue(forKey: id) else { return }
      byAccount[old.account]?.removeAll { $0 == id }
      if byAccount[old.account]?.isEmpty == true { byAccount[old.account] = nil }
    }

    /// The ids of the items `query` may select, sorted (the listing's order): looked up by id or account when
    /// the query names one, else every item whose attributes match.
    func candidates(_ query: Keychain.Query) -> [String] {
      guard let items else { return [] }
      let ids: [String]
      if let id = query.id {
        ids = [id]
      } else if let account = query.account, !query.caseInsensitive {
        ids = byAccount[account] ?? []
      } else {
        ids = Array(items.keys)
      }
      return ids.filter { items[$0].map { query.matches($0) } ?? false }.sorted()
    }
  }

  private let lock = Mutex()
  private var snapshots: [String: Snapshot] = [:]

  /// An empty cache.
  init() {}

  /// The user's snapshot, if any.
  func snapshot(_ user: UserName) -> Snapshot? { lock.withLock { snapshots[user.value] } }

  /// Replaces (or, with nil, forgets) the user's snapshot.
  func store(_ snapshot: Snapshot?, for user: UserName) { lock.withLock { snapshots[user.value] = snapshot } }
}

extension KeychainCache {
  /// A user's snapshot lent to one change or query under the folder's lock (`Keychain.withSnapshot`). While it only
  /// reads, the cache keeps the snapshot as it was lent; `willWrite()` forgets it before the first file is written,
  /// so that a change that fails halfway leaves the cache empty rather than wrong.
  struct Loan {
    /// The snapshot, kept in step with the files by the change; stored back when the body returns.
    var snapshot: Snapshot
    /// True once `willWrite()` was called.
    private(set) var writing = false
    private let cache: KeychainCache
    private let user: UserName

    fileprivate init(snapshot: Snapshot, cache: KeychainCache, user: UserName) {
      self.snapshot = snapshot
      self.cache = cache
      self.user = user
    }

    /// Call before writing any file: the cache forgets the user's snapshot until the body returns.
    mutating func willWrite() {
      guard !writing else { return }
      writing = true
      cache.store(nil, for: user)
    }
  }
}

extension Keychain {
  /// Runs `body` under the folder's lock with the user's snapshot (`lockedSnapshot`), and keeps the cache right
  /// whatever the body does: the snapshot stays cached while the body only reads, `Loan.willWrite()` forgets it
  /// before files change, and when the body returns the snapshot as it left it is stored back. A body that throws
  /// after `willWrite()` leaves the cache empty (the next call reloads); before it, the snapshot as lent stays.
  func withSnapshot<T>(
    _ folder: KeychainFolder, withItems: Bool, _ body: (inout KeychainCache.Loan) throws(KeychainError) -> T
  ) throws(KeychainError) -> T {
    try folder.locked { () throws(KeychainError) -> T in
      var loan = KeychainCache.Loan(snapshot: try lockedSnapshot(folder, withItems: withItems), cache: cache, user: folder.user)
      cache.store(loan.snapshot, for: folder.user)
      let result = try body(&loan)
      cache.store(loan.snapshot, for: folder.user)
      return result
    }
  }

  /// The user's snapshot, from memory when the `.index` is unchanged, else loaded (call under the folder's lock);
  /// `withItems` also reads every item's attributes once. Forgotten: `withSnapshot` stores it back.
  private func lockedSnapshot(_ folder: KeychainFolder, withItems: Bool) throws(KeychainError) -> KeychainCache.Snapshot {
    if let stamp = folder.stamp(KeychainIndex.fileName), var cached = cache.snapshot(folder.user), cached.stamp == stamp {
      cache.store(nil, for: folder.user)
      if !withItems || cached.items != nil { return cached }
      // The index is known but not the attributes: read them (and check the index against them).
      let (scanned, items) = try KeychainIndex.scan(folder)
      if scanned.entries != cached.index.entries { return try reload(folder, withItems: true) }
      cached.items = [:]
      for item in items { cached.setItem(item) }
      return cached
    }
    cache.store(nil, for: folder.user)
    return try reload(folder, withItems: withItems)
  }

  /// Loads the user's snapshot from the folder (under its lock), rebuilding the index when it is not whole.
  private func reload(_ folder: KeychainFolder, withItems: Bool) throws(KeychainError) -> KeychainCache.Snapshot {
    var index: KeychainIndex
    var items: [KeychainItem]? = nil
    if withItems {
      let scanned = try KeychainIndex.scan(folder)
      index = scanned.index
      items = scanned.items
      if let stored = try KeychainIndex.stored(folder), stored.entries == index.entries {
        index = stored
      } else {
        try folder.write(KeychainIndex.fileName, index.encoded())
      }
    } else {
      index = try KeychainIndex.load(folder)
      if folder.stamp(KeychainIndex.fileName) == nil { try folder.write(KeychainIndex.fileName, index.encoded()) }
    }
    guard let stamp = folder.stamp(KeychainIndex.fileName) else { throw .notAvailable("the keychain index cannot be read") }
    var snapshot = KeychainCache.Snapshot(stamp: stamp, index: index, items: items.map { _ in [:] })
    for item in items ?? [] { snapshot.setItem(item) }
    return snapshot
  }

  /// Appends journal lines for a change, then keeps the snapshot's stamp in step (under the folder's lock).
  func journal(_ text: String, lines: Int, in snapshot: inout KeychainCache.Snapshot, folder: KeychainFolder) throws(KeychainError) {
    try snapshot.index.append(text, lineCount: lines, to: folder)
    guard let stamp = folder.stamp(KeychainIndex.fileName) else { throw .notAvailable("the keychain index cannot be read") }
    snapshot.stamp = stamp
  }
}
