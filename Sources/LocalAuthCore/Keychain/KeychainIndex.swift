/// The per-user keychain quota (`keychain_max_items=`, `keychain_max_bytes=`; docs/KEYCHAIN.md, "Quota").
public struct KeychainLimits: Equatable, Sendable {
  /// The most items one user's keychain holds, rights' and the module's included.
  package var maxItems: Int
  /// The most bytes its item files take together (sealed, as stored).
  package var maxBytes: Int

  /// The limits; by default 1000 items and 16 MiB.
  public init(maxItems: Int = 1000, maxBytes: Int = 16 * 1024 * 1024) {
    self.maxItems = maxItems
    self.maxBytes = maxBytes
  }
}

/// What the keychain knows of a user's items without opening them: each item's id, file size and unique key
/// (`KeychainItem.uniqueKey`). Kept in the folder's `.index` (root's, like the rest) as a journal: a header, then
/// one line per change, "+ id size key" (added or replaced) or "- id" (deleted). An add, an update or a delete
/// appends its lines before it writes or removes the item file; the journal is rewritten whole once it holds more
/// lines than twice the items. It is trusted only while it decodes whole (a torn last line does not) and names
/// exactly the `item-` files the folder holds; otherwise it is rebuilt from the items, once.
struct KeychainIndex: Equatable {
  /// One item's entry.
  struct Entry: Equatable {
    var size: Int
    /// The unique key, hex-encoded fields joined by "/"; "-" for a file that does not decode (it matches nothing).
    var key: String
  }

  /// The entries by item id.
  private(set) var entries: [String: Entry] = [:]
  /// How many entries have each key (one, unless files were edited by hand).
  private var keyCounts: [String: Int] = [:]
  /// The bytes the item files take.
  private(set) var bytes = 0
  /// The journal's lines after the header.
  var lines = 0

  /// The file's name in the user's folder.
  static let fileName = ".index"
  /// The first line.
  static let header = "localauth-keychain-index 2"
  /// The longest index file read (64-byte ids and three hex keys per line, far beyond any quota).
  static let maximumFileSize = 64 * 1024 * 1024

  /// The item count.
  var count: Int { entries.count }
  /// The ids, sorted.
  var ids: [String] { entries.keys.sorted() }

  /// True when an item has that unique key.
  func contains(key: String) -> Bool { (keyCounts[key] ?? 0) > 0 }

  /// How many items have that unique key.
  func count(key: String) -> Int { keyCounts[key] ?? 0 }

  /// Records an item's entry (replacing its previous one).
  mutating func set(_ id: String, size: Int, key: String) {
    remove(id)
    entries[id] = Entry(size: size, key: key)
    keyCounts[key, default: 0] += 1
    bytes += size
  }

  /// Forgets an item's entry.
  mutating func remove(_ id: String) {
    guard let old = entries.removeValue(forKey: id) else { return }
    bytes -= old.size
    let left = (keyCounts[old.key] ?? 1) - 1
    keyCounts[old.key] = left > 0 ? left : nil
  }

  /// The journal line that records an entry.
  static func setLine(_ id: String, size: Int, key: String) -> String { "+ " + id + " " + String(size) + " " + key + "\n" }
  /// The journal line that forgets an entry.
  static func removeLine(_ id: String) -> String { "- " + id + "\n" }

  /// The index written whole: the header and one line per item.
  func encoded() -> [UInt8] {
    var text = KeychainIndex.header + "\n"
    for id in ids { if let entry = entries[id] { text += KeychainIndex.setLine(id, size: entry.size, key: entry.key) } }
    return Array(text.utf8)
  }

  /// Decodes an index file; nil when it is not one, or its last line is torn.
  static func decode(_ bytes: [UInt8]) -> KeychainIndex? {
    guard bytes.last == UInt8(ascii: "\n") else { return nil }
    let lines = String(decoding: bytes, as: UTF8.self).fields(separatedBy: UInt8(ascii: "\n"))
    guard let first = lines.first, String(first) == header else { return nil }
    var index = KeychainIndex()
    for line in lines.dropFirst() where !line.isEmpty {
      let parts = line.fields(separatedBy: UInt8(ascii: " "))
      guard parts.count >= 2, !parts[1].isEmpty else { return nil }
      if parts[0] == "+", parts.count == 4, let size = Int(parts[2]), size >= 0, !parts[3].isEmpty {
        index.set(String(parts[1]), size: size, key: String(parts[3]))
      } else if parts[0] == "-", parts.count == 2 {
        index.remove(String(parts[1]))
      } else {
        return nil
      }
      index.lines += 1
    }
    return index
  }

  /// The index rebuilt from the item files, and the items that decode (call under the folder's lock).
  static func scan(_ folder: KeychainFolder) throws(KeychainError) -> (index: KeychainIndex, items: [KeychainItem]) {
    var index = KeychainIndex()
    var items: [KeychainItem] = []
    for id in try folder.itemIDs() {
      guard let bytes = try folder.read("item-" + id) else { continue }
      let item = KeychainItem.decode(bytes, id: id)
      index.set(id, size: bytes.count, key: item.map { $0.uniqueKey } ?? "-")
      if let item { items.append(item) }
    }
    index.lines = index.count
    return (index, items)
  }

  /// The stored index when it decodes and names exactly the item files listed; nil otherwise.
  static func stored(_ folder: KeychainFolder) throws(KeychainError) -> KeychainIndex? {
    guard let bytes = try folder.read(fileName, limit: maximumFileSize), let stored = decode(bytes),
      stored.ids == (try folder.itemIDs())
    else { return nil }
    return stored
  }

  /// The folder's index (call under the folder's lock): the stored one when it is whole, else one rebuilt from
  /// the items and stored.
  static func load(_ folder: KeychainFolder) throws(KeychainError) -> KeychainIndex {
    guard try folder.exists() else { return KeychainIndex() }
    if let stored = try stored(folder) { return stored }
    let rebuilt = try scan(folder).index
    try folder.write(fileName, rebuilt.encoded())
    return rebuilt
  }

  /// Appends journal lines (call under the folder's lock, before the item files change), or rewrites the index
  /// whole when the journal has grown to more than twice the items.
  mutating func append(_ text: String, lineCount: Int, to folder: KeychainFolder) throws(KeychainError) {
    lines += lineCount
    if lines > 2 * count + 64 {
      lines = count
      try folder.write(KeychainIndex.fileName, encoded())
    } else {
      try folder.append(KeychainIndex.fileName, Array(text.utf8))
    }
  }

  /// Drops the folder's index; the next call rebuilds it.
  static func drop(_ folder: KeychainFolder) throws(KeychainError) { try folder.remove(fileName) }
}
