/// SecItemAdd, SecItemCopyMatching, SecItemUpdate and SecItemDelete over the core: one implementation for a
/// root process (the Security product calls it in-process) and for an app's session in localauth-helper.
package struct KeychainOperations {
  /// The keychain.
  package let keychain: Keychain
  /// The clock, store, sensor, prompter and log the evaluations use.
  package let dependencies: Dependencies
  /// The evaluation rules.
  package let settings: EvaluationSettings

  /// Operations over `keychain`, evaluating with `dependencies`.
  package init(keychain: Keychain, dependencies: Dependencies, settings: EvaluationSettings) {
    self.keychain = keychain
    self.dependencies = dependencies
    self.settings = settings
  }

  /// What a read returns for one item.
  package struct Found {
    /// The item's attributes.
    package var item: KeychainItem
    /// Its data, when asked for.
    package var data: [UInt8]?
  }

  /// Adds `new` for `request`'s user. An applicationPassword item takes the password from `authorization`, or
  /// asks for it when the request allows a prompt. A reserved access group is refused (`Keychain.refuseReserved`).
  package func add(
    _ new: Keychain.NewItem, request: EvaluationRequest, authorization: KeychainAuthorization
  ) throws(LocalAuthError) -> KeychainItem {
    do { try Keychain.refuseReserved(new.accessGroup, adding: true) } catch { throw .keychain(error) }
    var password = authorization.applicationPassword
    var asked: SecretBytes? = nil
    defer { asked?.wipe() }
    if new.flags?.contains(.applicationPassword) == true && password == nil {
      guard request.interactionAllowed else { throw .keychain(.interactionNotAllowed) }
      asked = try dependencies.prompter.secret("Application password: ")
      password = asked
    }
    let record = try dependencies.store.load(request.user)
    do {
      return try keychain.add(
        new, for: request.user, record: record, applicationPassword: password, hasher: settings.hasher)
    } catch { throw .keychain(error) }
  }

  /// Finds the items `query` selects and, with `returnData`, opens them, running the evaluations their access
  /// control needs beyond `authorization` (which keeps what they established). `mode` is kSecUseAuthenticationUI.
  package func copy(
    _ query: Keychain.Query, returnData: Bool, all: Bool, mode: AppInterfaceMode, request template: EvaluationRequest,
    authorization: inout KeychainAuthorization
  ) throws(LocalAuthError) -> [Found] {
    var items: [KeychainItem]
    do {
      try Keychain.refuseReserved(query.accessGroup)
      items = try keychain.matching(query, for: template.user)
    } catch { throw .keychain(error) }
    if returnData && mode == .skip {
      items = items.filter {
        ($0.flags?.requirement.constraints.isEmpty ?? true) && $0.flags?.contains(.applicationPassword) != true
      }
    }
    guard !items.isEmpty else { throw .keychain(.itemNotFound) }
    if !all { items = [items[0]] }
    var request = template
    if mode == .fail { request.interactionAllowed = false }
    let reader = KeychainReader(keychain: keychain, dependencies: dependencies, settings: settings)
    var found: [Found] = []
    for item in items {
      let data = returnData ? try reader.read(item, request: request, authorization: &authorization) : nil
      found.append(Found(item: item, data: data))
    }
    return found
  }

  /// Applies `changes` to the items `query` selects (docs/KEYCHAIN.md, "Updates"). New data needs no
  /// authentication, as on Apple's systems; without it each item is read first (so its access control is
  /// satisfied as a read would satisfy it, with `request` and `authorization`) and re-sealed under its new attributes.
  package func update(
    _ query: Keychain.Query, changes: Keychain.Changes, request: EvaluationRequest,
    authorization: inout KeychainAuthorization
  ) throws(LocalAuthError) {
    do {
      try Keychain.refuseReserved(query.accessGroup)
      try Keychain.refuseReserved(changes.accessGroup, adding: true)
    } catch { throw .keychain(error) }
    var opened: [(item: KeychainItem, data: [UInt8])] = []
    defer { for index in opened.indices { wipe(&opened[index].data) } }
    if changes.data == nil {
      let items: [KeychainItem]
      do { items = try keychain.matching(query, for: request.user) } catch { throw .keychain(error) }
      guard !items.isEmpty else { throw .keychain(.itemNotFound) }
      let reader = KeychainReader(keychain: keychain, dependencies: dependencies, settings: settings)
      for item in items { opened.append((item, try reader.read(item, request: request, authorization: &authorization))) }
    }
    let record = try dependencies.store.load(request.user)
    do {
      _ = try keychain.update(
        query, for: request.user, changes: changes, opened: opened, record: record,
        applicationPassword: authorization.applicationPassword, hasher: settings.hasher)
    } catch { throw .keychain(error) }
  }

  /// Deletes the items `query` selects; `itemNotFound` when there is none.
  package func delete(_ query: Keychain.Query, user: UserName) throws(LocalAuthError) {
    let deleted: [KeychainItem]
    do {
      try Keychain.refuseReserved(query.accessGroup)
      deleted = try keychain.delete(query, for: user)
    } catch { throw .keychain(error) }
    if deleted.isEmpty { throw .keychain(.itemNotFound) }
  }
}
