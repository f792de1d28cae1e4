/// The per-user keychain quota (`keychain_max_items=`, `keychain_max_bytes=`; docs/KEYCHAIN.md, "Quota").
public struct KeychainLimits: Equatable, Sendable {
  /// The most items one user's keychain holds, rights' and the module's included.
  public var maxItems: Int
  /// The most bytes its item files take together (sealed, as stored).
  public var maxBytes: Int

  /// The limits; by default 1000 items and 16 MiB.
  public init(maxItems: Int = 1000, maxBytes: Int = 16 * 1024 * 1024) {
    self.maxItems = maxItems
    self.maxBytes = maxBytes
  }
}

/// What an add needs to know of the items already in a user's keychain, without opening them: each item's id, file
/// size and unique key (`KeychainItem.uniqueKey`). Kept in the folder's `.index` (root's, like the rest) and
/// trusted only while it names exactly the `item-` files the folder holds; otherwise it is rebuilt from the items,
/// once. Updates and deletions drop it (the next add rebuilds it). So an add reads one file, not every item.
struct KeychainIndex: Equatable {
  /// One item's entry.
  struct Entry: Equatable {
    var id: String
    var size: Int
    /// The unique key, hex-encoded fields joined by "/"; "-" for a file that does not decode (it matches nothing).
    var key: String
  }

  /// The entries, by id order of the listing.
  var entries: [Entry]

  /// The file's name in the user's folder.
  static let fileName = ".index"
  /// The first line.
  static let header = "localauth-keychain-index 1"
  /// The longest index file read (64-byte ids and three hex keys per line, far beyond any quota).
  static let maximumFileSize = 64 * 1024 * 1024

  /// The item count.
  var count: Int { entries.count }
  /// The bytes the item files take.
  var bytes: Int { entries.reduce(0) { $0 + $1.size } }

  /// True when an item has that unique key.
  func contains(key: String) -> Bool { entries.contains { $0.key == key } }

  /// The index as written.
  func encoded() -> [UInt8] {
    var text = KeychainIndex.header + "\n"
    for entry in entries { text += entry.id + " " + String(entry.size) + " " + entry.key + "\n" }
    return Array(text.utf8)
  }

  /// Decodes an index file; nil when it is not one.
  static func decode(_ bytes: [UInt8]) -> KeychainIndex? {
    let lines = String(decoding: bytes, as: UTF8.self).fields(separatedBy: UInt8(ascii: "\n"))
    guard let first = lines.first, String(first) == header else { return nil }
    var entries: [Entry] = []
    for line in lines.dropFirst() where !line.isEmpty {
      let parts = line.fields(separatedBy: UInt8(ascii: " "))
      guard parts.count == 3, !parts[0].isEmpty, let size = Int(parts[1]), size >= 0 else { return nil }
      entries.append(Entry(id: String(parts[0]), size: size, key: String(parts[2])))
    }
    return KeychainIndex(entries: entries)
  }

  /// The folder's index (call under the folder's lock): the stored one when it names exactly the item files
  /// listed, else one rebuilt from the items and stored.
  static func load(_ folder: KeychainFolder) throws(KeychainError) -> KeychainIndex {
    guard try folder.exists() else { return KeychainIndex(entries: []) }
    let ids = try folder.itemIDs()
    if let bytes = try folder.read(fileName, limit: maximumFileSize), let stored = decode(bytes),
      stored.entries.map({ $0.id }).sorted() == ids
    {
      return stored
    }
    var entries: [Entry] = []
    for id in ids {
      guard let bytes = try folder.read("item-" + id) else { continue }
      let item = KeychainItem.decode(bytes, id: id)
      entries.append(
        Entry(
          id: id, size: bytes.count,
          key: item.map { $0.uniqueKey } ?? "-"))
    }
    let rebuilt = KeychainIndex(entries: entries)
    try folder.write(fileName, rebuilt.encoded())
    return rebuilt
  }

  /// Drops the folder's index (after an update or a deletion); the next add rebuilds it.
  static func drop(_ folder: KeychainFolder) throws(KeychainError) { try folder.remove(fileName) }
}
