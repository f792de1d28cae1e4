/// SecItemUpdate's changes: any attribute, the accessibility and the access control included, as Apple allows.
/// Every item is re-sealed, since the sealed data is bound to every attribute (docs/KEYCHAIN.md, "Updates").
extension Keychain {
  /// What an update changes; nil leaves an attribute as it is.
  package struct Changes: Sendable {
    package var service: String?
    package var account: String?
    package var label: String?
    package var accessGroup: String?
    /// Attributes set (the others are kept).
    package var attributes: KeychainAttributes
    /// kSecAttrAccessible.
    package var accessibility: KeychainAccessibility?
    /// kSecAttrAccessControl's flags: nil keeps the item's; `.some(nil)` removes its access control.
    package var flags: KeychainAccessFlags??
    /// kSecValueData.
    package var data: [UInt8]?

    /// Describes the changes.
    package init(
      service: String? = nil, account: String? = nil, label: String? = nil, accessGroup: String? = nil,
      attributes: KeychainAttributes = KeychainAttributes(), accessibility: KeychainAccessibility? = nil,
      flags: KeychainAccessFlags?? = nil, data: [UInt8]? = nil
    ) {
      self.service = service
      self.account = account
      self.label = label
      self.accessGroup = accessGroup
      self.attributes = attributes
      self.accessibility = accessibility
      self.flags = flags
      self.data = data
    }

    /// `item` with these attribute changes (not its protection nor its data).
    func applied(to item: KeychainItem) -> KeychainItem {
      var changed = item
      if let service { changed.service = service }
      if let account { changed.account = account }
      if let label { changed.label = label }
      if let accessGroup { changed.accessGroup = accessGroup }
      changed.attributes.merge(attributes)
      return changed
    }
  }

  /// Replaces the data (and label) of the items `query` selects; no authentication, as on Apple's systems.
  package func update(
    _ query: Query, for user: UserName, data: [UInt8]?, label: String?, applicationPassword: SecretBytes? = nil,
    hasher: PasscodeHasher
  ) throws(KeychainError) -> Int {
    guard let data else { throw .parameter("changing attributes without new data is not supported here; give the data") }
    return try update(
      query, for: user, changes: Changes(label: label, data: data), opened: [], record: nil,
      applicationPassword: applicationPassword, hasher: hasher)
  }

  /// Applies `changes` to the items `query` selects and re-seals each. Without new data, `opened` holds each item's
  /// current data, read by the caller after the item's access control was satisfied; an item that changed since is
  /// refused. A change that would give an item the primary key of another is duplicateItem, and nothing changes.
  /// `record` is the user's (passcode, enrolled set) for a new access control.
  package func update(
    _ query: Query, for user: UserName, changes: Changes, opened: [(item: KeychainItem, data: [UInt8])],
    record: UserRecord?, applicationPassword: SecretBytes?, hasher: PasscodeHasher
  ) throws(KeychainError) -> Int {
    if let data = changes.data, data.count > KeychainItem.maximumDataSize { throw .parameter("the data is larger than 16 KiB") }
    let folder = folder(user)
    guard try folder.exists() else { throw .itemNotFound }
    return try withSnapshot(folder, withItems: true) { loan throws(KeychainError) -> Int in
      let selected = try read(loan.snapshot.candidates(query), in: folder) { query.matches($0) }
      guard !selected.isEmpty else { throw .itemNotFound }
      // Apple's uniqueness, checked for every item before any is written, from the index.
      // (Without copying the index: the selected items' keys are discounted, the new ones kept aside.)
      var bytes = loan.snapshot.index.bytes
      var selectedKeys: [String: Int] = [:]
      for item in selected {
        bytes -= loan.snapshot.index.entries[item.id]?.size ?? 0
        if let key = loan.snapshot.index.entries[item.id]?.key { selectedKeys[key, default: 0] += 1 }
      }
      var newKeys: [String: Bool] = [:]
      var updated: [KeychainItem] = []
      for item in selected {
        let changed = changes.applied(to: item)
        if changed.attributes.encode().count > KeychainAttributes.maximumSize {
          throw .parameter("the attributes take more than \(KeychainAttributes.maximumSize) bytes")
        }
        let key = changed.uniqueKey
        if loan.snapshot.index.count(key: key) > (selectedKeys[key] ?? 0) || newKeys[key] != nil { throw .duplicateItem }
        // The quota holds for updates too: the new file's size, counting the data's (sealed) size as it will be.
        bytes += changed.encoded().count + 2 * max(0, (changes.data?.count ?? 0) - (item.sealed.count - 28))
        if bytes > limits.maxBytes {
          throw .allocate("user \(user)'s items would take \(bytes) bytes, more than keychain_max_bytes (\(limits.maxBytes))")
        }
        newKeys[key] = true
        updated.append(changed)
      }
      loan.willWrite()
      for var item in updated {
        guard let data = changes.data ?? opened.first(where: { $0.item.id == item.id && $0.item.sealed == item.sealed })?.data else {
          throw .notAvailable("the item changed while it was being updated")
        }
        if changes.accessibility != nil || changes.flags != nil {
          let protection = try Protection(
            accessibility: changes.accessibility ?? item.accessibility, flags: changes.flags ?? item.flags,
            record: record, applicationPassword: applicationPassword, hasPassword: item.passwordSetting != nil)
          try protection.apply(to: &item, applicationPassword: applicationPassword, hasher: hasher)
        }
        item.modified = Int64(clock.now().seconds)
        var shared = item.keySource == .passcode ? try passcodeShare(for: &item, in: folder) : []
        defer { wipe(&shared) }
        if item.passwordSetting != nil && applicationPassword == nil {
          throw .parameter("an applicationPassword item needs the password to be updated")
        }
        try seal(&item, data: data, user: user, shared: shared, applicationPassword: applicationPassword, hasher: hasher, create: false)
        // The item file, then its index line: a crash between leaves an index with the old size and key, which
        // the next process to read every item (KeychainCache) finds and rebuilds.
        let size = item.encoded().count
        loan.snapshot.index.set(item.id, size: size, key: item.uniqueKey)
        try folder.write(item)
        try journal(KeychainIndex.setLine(item.id, size: size, key: item.uniqueKey), lines: 1, in: &loan.snapshot, folder: folder)
        loan.snapshot.setItem(item)
      }
      return updated.count
    }
  }
}
