/// Users' keychains in the state folder (`<state>/keychain/<user>/`): generic-password items whose data is
/// sealed with AES-256-GCM under a per-item key, released only when an evaluation satisfies the item's access
/// control (docs/KEYCHAIN.md). Adding, updating and deleting need no authentication; reading does.
public final class Keychain {
  /// The state folder.
  package let root: String
  /// The TPM that seals new device keys (a TCTI such as "device:/dev/tpmrm0"); nil for none.
  package let tcti: String?
  /// The clock: item times, and the boot for AfterFirstUnlock.
  let clock: AuthClock
  /// Each user's quota (`keychain_max_items=`, `keychain_max_bytes=`).
  package let limits: KeychainLimits
  /// The item files this keychain has read (tests: an add reads none of the existing items).
  package let itemReads = KeychainReadCounter()
  /// Each user's index and attributes, as last seen (KeychainCache).
  let cache = KeychainCache()

  /// A keychain over the state folder `root`.
  public init(root: String, tcti: String?, clock: AuthClock = SystemClock(), limits: KeychainLimits = KeychainLimits()) {
    self.root = root
    self.tcti = tcti
    self.clock = clock
    self.limits = limits
  }

  /// What a new item carries.
  public struct NewItem {
    package var service: String
    package var account: String
    package var label: String
    package var accessGroup: String
    package var accessibility: KeychainAccessibility
    package var flags: KeychainAccessFlags?
    package var data: [UInt8]
    /// kSecClass.
    package var itemClass: KeychainItemClass = .genericPassword
    /// The other attributes (docs/KEYCHAIN.md, "Attributes").
    package var attributes = KeychainAttributes()

    /// Describes an item to add.
    public init(
      service: String = "", account: String = "", label: String = "", accessGroup: String = "",
      accessibility: KeychainAccessibility = .whenUnlocked, flags: KeychainAccessFlags? = nil, data: [UInt8]
    ) {
      self.service = service
      self.account = account
      self.label = label
      self.accessGroup = accessGroup
      self.accessibility = accessibility
      self.flags = flags
      self.data = data
    }
  }

  /// Which items a call is about: every attribute given must be equal.
  public struct Query: Equatable, Sendable {
    package var service: String?
    package var account: String?
    package var label: String?
    /// kSecAttrAccessGroup; nil selects every group but the reserved ones (`Keychain.isReserved`), as an app's
    /// query on Apple's systems selects only the groups it is entitled to.
    package var accessGroup: String?
    /// With a nil `accessGroup`, also select the reserved groups (the administrator's listings and deletions).
    package var includesReservedGroups: Bool
    /// kSecClass; nil selects both classes.
    package var itemClass: KeychainItemClass? = nil
    /// Further attributes that must be equal (an unset sync counts as 0).
    package var attributes = KeychainAttributes()
    /// kSecMatchCaseInsensitive: text attributes compare ignoring ASCII case.
    package var caseInsensitive = false
    /// kSecValuePersistentRef: only the item with this id.
    package var id: String? = nil

    /// Describes a selection (no attribute: every item outside the reserved groups).
    public init(
      service: String? = nil, account: String? = nil, label: String? = nil, accessGroup: String? = nil,
      includesReservedGroups: Bool = false
    ) {
      self.service = service
      self.account = account
      self.label = label
      self.accessGroup = accessGroup
      self.includesReservedGroups = includesReservedGroups
    }

    /// True when `item` has every attribute given.
    package func matches(_ item: KeychainItem) -> Bool {
      let group = accessGroup.map { $0 == item.accessGroup } ?? (includesReservedGroups || !Keychain.isReserved(item.accessGroup))
      func same(_ wanted: String?, _ actual: String) -> Bool {
        wanted.map { textEqual($0, actual, caseInsensitive: caseInsensitive) } ?? true
      }
      guard same(service, item.service) && same(account, item.account) && same(label, item.label) && group else { return false }
      if let itemClass, itemClass != item.itemClass { return false }
      if let id, id != item.id { return false }
      for entry in attributes.entries {
        let actual = item.attributes.matchValue(entry.name)
        if case .text(let wanted) = entry.value, case .text(let text)? = actual {
          if !textEqual(wanted, text, caseInsensitive: caseInsensitive) { return false }
        } else if actual != entry.value {
          return false
        }
      }
      return true
    }
  }

  /// True for an access group only the core's own stores use: `RightStore.accessGroup`, where LARightStore keeps
  /// persisted rights, and `KeychainOptions.moduleAccessGroup`, where the module keeps the login secret
  /// (docs/KEYCHAIN.md, "Reserved access groups"). Apps' keychain calls cannot name them, and their queries without
  /// a group never select them.
  package static func isReserved(_ group: String) -> Bool {
    group == RightStore.accessGroup || group == KeychainOptions.moduleAccessGroup
  }

  /// Refuses an app's keychain call that names a reserved access group: LARightStore's is errSecParam; the
  /// module's is errSecItemNotFound for a read, an update or a delete (nothing there is the app's), and
  /// errSecMissingEntitlement for an add (`adding`), as Apple answers for a group the app is not entitled to.
  package static func refuseReserved(_ group: String?, adding: Bool = false) throws(KeychainError) {
    guard let group, isReserved(group) else { return }
    if group == RightStore.accessGroup { throw .parameter("the access group \(group) is reserved for LARightStore") }
    if adding { throw .missingEntitlement("the access group \(group) is reserved for pam_localauth") }
    throw .itemNotFound
  }

  func folder(_ user: UserName) -> KeychainFolder { KeychainFolder(root: root, user: user, reads: itemReads) }

  /// Adds an item; `record` is the user's record (passcode, domain state), `applicationPassword` the
  /// password an applicationPassword item is sealed with.
  @discardableResult
  package func add(
    _ new: NewItem, for user: UserName, record: UserRecord?, applicationPassword: SecretBytes? = nil,
    hasher: PasscodeHasher
  ) throws(KeychainError) -> KeychainItem {
    let protection = try Protection(
      accessibility: new.accessibility, flags: new.flags, record: record, applicationPassword: applicationPassword,
      hasPassword: false)
    guard new.data.count <= KeychainItem.maximumDataSize else { throw .parameter("the data is larger than 16 KiB") }
    if new.attributes.encode().count > KeychainAttributes.maximumSize {
      throw .parameter("the attributes take more than \(KeychainAttributes.maximumSize) bytes")
    }
    let folder = folder(user)
    // The index, not the items: an add reads no item file, however many items there are.
    return try withSnapshot(folder, withItems: false) { loan throws(KeychainError) -> KeychainItem in
      // Apple's uniqueness (KeychainItem.uniqueKey).
      let key = KeychainItem.uniqueKey(
        itemClass: new.itemClass, service: new.service, account: new.account, accessGroup: new.accessGroup,
        attributes: new.attributes)
      if loan.snapshot.index.contains(key: key) { throw .duplicateItem }
      if loan.snapshot.index.count >= limits.maxItems {
        throw .allocate("user \(user) has \(loan.snapshot.index.count) items, the most keychain_max_items allows")
      }
      let now = Int64(clock.now().seconds)
      let id = hexEncode(try keychainCrypto { () throws(CryptoError) -> [UInt8] in try Crypto.randomBytes(16) })
      var item = KeychainItem(
        id: id, service: new.service, account: new.account, label: new.label, accessGroup: new.accessGroup,
        itemClass: new.itemClass, attributes: new.attributes, accessibility: new.accessibility,
        flags: new.flags, domainState: nil, keySource: .device, created: now, modified: now)
      try protection.apply(to: &item, applicationPassword: applicationPassword, hasher: hasher)
      var shared = item.keySource == .passcode ? try passcodeShare(for: &item, in: folder) : []
      defer { wipe(&shared) }
      try seal(&item, data: new.data, user: user, shared: shared, applicationPassword: applicationPassword, hasher: hasher, create: true)
      let encoded = item.encoded()
      if loan.snapshot.index.bytes + encoded.count > limits.maxBytes {
        throw .allocate("user \(user)'s items would take \(loan.snapshot.index.bytes + encoded.count) bytes, more than keychain_max_bytes (\(limits.maxBytes))")
      }
      // The index line first: a crash before the item file leaves an index that names a missing file (rebuilt).
      loan.willWrite()
      loan.snapshot.index.set(item.id, size: encoded.count, key: key)
      try journal(KeychainIndex.setLine(item.id, size: encoded.count, key: key), lines: 1, in: &loan.snapshot, folder: folder)
      try folder.write(item)
      loan.snapshot.setItem(item)
      return item
    }
  }

  /// The user's items (attributes only); files that do not decode are left out.
  package func items(for user: UserName) throws(KeychainError) -> [KeychainItem] { try folder(user).items().items }

  /// The items `query` selects: candidates from the cached index and attributes (KeychainCache), then only
  /// their files read, which decide.
  package func matching(_ query: Query, for user: UserName) throws(KeychainError) -> [KeychainItem] {
    let folder = folder(user)
    guard try folder.exists() else { return [] }
    let snapshot: KeychainCache.Snapshot
    if let stamp = folder.stamp(KeychainIndex.fileName), let cached = cache.snapshot(user), cached.stamp == stamp,
      cached.items != nil
    {
      snapshot = cached
    } else {
      snapshot = try withSnapshot(folder, withItems: true) { loan throws(KeychainError) -> KeychainCache.Snapshot in loan.snapshot }
    }
    return try read(snapshot.candidates(query), in: folder) { query.matches($0) }
  }

  /// The items among `ids` whose files decode and that `select` picks, as their files are now.
  func read(_ ids: [String], in folder: KeychainFolder, _ select: (KeychainItem) -> Bool) throws(KeychainError) -> [KeychainItem] {
    var found: [KeychainItem] = []
    for id in ids {
      guard let bytes = try folder.read("item-" + id), let item = KeychainItem.decode(bytes, id: id), select(item) else { continue }
      found.append(item)
    }
    return found
  }

  /// True when a biometryCurrentSet item can no longer be read because the enrolled set changed since it was
  /// added, and no other constraint of an `.or` could read it.
  package func isInvalidated(_ item: KeychainItem, currentDomainState: String?) -> Bool {
    guard let flags = item.flags, flags.contains(.biometryCurrentSet), item.domainState != currentDomainState else {
      return false
    }
    return !(flags.contains(.or) && flags.constraints != .biometryCurrentSet)
  }

  /// Decrypts an item's data, after checking that the device's lock allows its accessibility (DeviceLock) and that
  /// `authorization` satisfies its access control.
  package func open(
    _ item: KeychainItem, for user: UserName, authorization: KeychainAuthorization, lock: DeviceLock,
    hasher: PasscodeHasher
  ) throws(KeychainError) -> [UInt8] {
    guard lock.allowsReading(item.accessibility) else { throw .interactionNotAllowed }
    if let flags = item.flags {
      let (constraints, anyOne) = flags.requirement
      let results = constraints.map { $0.isSatisfied(by: authorization, storedDomainState: item.domainState) }
      let satisfied = constraints.isEmpty || (anyOne ? results.contains(true) : !results.contains(false))
      guard satisfied else { throw .authenticationFailed }
      if flags.contains(.applicationPassword) && authorization.applicationPassword == nil { throw .authenticationFailed }
    }
    let folder = folder(user)
    var shared: [UInt8] = []
    defer { wipe(&shared) }
    if item.keySource == .passcode {
      guard let passcode = authorization.passcode else { throw .authenticationFailed }
      var privateKey = try PasscodeKey.privateKey(in: folder, passcode: passcode, hasher: hasher)
      defer { wipe(&privateKey) }
      let peer = item.ephemeralPublicKey
      shared = try keychainCrypto { () throws(CryptoError) -> [UInt8] in try Crypto.x25519(privateKey: privateKey, peer: peer) }
    }
    var copy = item
    return try unseal(&copy, user: user, shared: shared, applicationPassword: authorization.applicationPassword, hasher: hasher)
  }

  /// Deletes the items `query` selects; `itemNotFound` when there is none.
  @discardableResult
  package func delete(_ query: Query, for user: UserName) throws(KeychainError) -> [KeychainItem] {
    try delete(for: user, among: query) { query.matches($0) }
  }

  /// Deletes the items `select` picks (possibly none), among the candidates of `query` when given.
  @discardableResult
  func delete(for user: UserName, among query: Query? = nil, _ select: (KeychainItem) -> Bool) throws(KeychainError) -> [KeychainItem] {
    let folder = folder(user)
    guard try folder.exists() else { throw .itemNotFound }
    return try withSnapshot(folder, withItems: true) { loan throws(KeychainError) -> [KeychainItem] in
      let ids = query.map { loan.snapshot.candidates($0) } ?? (loan.snapshot.items ?? [:]).values.filter { select($0) }.map { $0.id }.sorted()
      let selected = try read(ids, in: folder, select)
      guard !selected.isEmpty else { return selected }
      // The index lines first: a crash before the files go leaves an index that misses them (rebuilt).
      loan.willWrite()
      var text = ""
      for item in selected {
        loan.snapshot.index.remove(item.id)
        text += KeychainIndex.removeLine(item.id)
      }
      try journal(text, lines: selected.count, in: &loan.snapshot, folder: folder)
      for item in selected {
        try folder.remove(item)
        loan.snapshot.removeItem(item.id)
      }
      return selected
    }
  }

  /// How the user's device key is kept; nil when the user has no key yet.
  package func protection(for user: UserName) throws(KeychainError) -> DeviceKeyProtection? {
    try DeviceKey.protection(in: folder(user))
  }
}
