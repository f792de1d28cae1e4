/// The user's login secret: the Unix password, kept in the user's keychain (service "pam_localauth", account
/// "login", WhenPasscodeSetThisDeviceOnly) in the reserved access group `KeychainOptions.moduleAccessGroup`, so that
/// a fingerprint login can hand it to pam_gnome_keyring and its peers through PAM_AUTHTOK and no app can read,
/// replace or delete it (docs/KEYCHAIN.md, "The login secret").
///
/// A secret stored by earlier versions (same service and account, no access group) could have been written by any
/// app of the user, so it is never released: it is ignored, and deleted when the module captures the password again
/// or the password changes. Only an item carrying every field the earlier module wrote is deleted (`isLegacy`): an
/// app's own `pam_localauth`/`login` item in a group of its own, or with fields of its own, is the app's and stays.
package struct LoginSecret {
  /// The keychain.
  package let keychain: Keychain
  /// The access control it is stored with (userPresence, or biometryCurrentSet).
  package let flags: KeychainAccessFlags
  /// The hasher (for passcode-keyed items; the login secret is not one, but the keychain's calls take it).
  package let hasher: PasscodeHasher

  /// The login secret of `keychain`, stored with `flags`.
  package init(keychain: Keychain, flags: KeychainAccessFlags, hasher: PasscodeHasher) {
    self.keychain = keychain
    self.flags = flags
    self.hasher = hasher
  }

  static let query = Keychain.Query(
    service: KeychainOptions.loginSecretService, account: KeychainOptions.loginSecretAccount,
    accessGroup: KeychainOptions.moduleAccessGroup)

  /// The label the module gives the login secret (earlier versions wrote the same).
  static let label = "Login password (pam_localauth)"

  /// Where earlier versions kept it: the same service and account outside the reserved groups. Among these, only
  /// the items `isLegacy` accepts are the module's.
  static let legacyQuery = Keychain.Query(
    service: KeychainOptions.loginSecretService, account: KeychainOptions.loginSecretAccount, accessGroup: "")

  /// True for an item exactly as versions before the reserved group wrote the login secret: a generic password
  /// with service "pam_localauth", account "login", no access group, the module's label, no other attribute,
  /// WhenPasscodeSetThisDeviceOnly, access control userPresence or biometryCurrentSet alone, keyed by the device
  /// key. An app's item with the same service and account but anything else (a group, a label, a class, another
  /// access control) is the app's: the clean-up leaves it (issue 37, finding V). An app that copies every field has
  /// made the module's item, and loses it with the module's.
  package static func isLegacy(_ item: KeychainItem) -> Bool {
    item.service == KeychainOptions.loginSecretService && item.account == KeychainOptions.loginSecretAccount
      && item.accessGroup.isEmpty && item.itemClass == .genericPassword && item.label == label
      && item.attributes.isEmpty && item.accessibility == .whenPasscodeSetThisDeviceOnly
      && (item.flags == .userPresence || item.flags == .biometryCurrentSet) && item.keySource == .device
      && item.passwordSetting == nil
  }

  /// Deletes the login secret earlier versions stored (`isLegacy`), and nothing else of the user's.
  private func deleteLegacy(for user: UserName) {
    _ = try? keychain.delete(for: user, among: LoginSecret.legacyQuery) { LoginSecret.isLegacy($0) }
  }

  /// Stores `password` as the user's login secret, replacing any earlier one (and a copy stored the old way).
  package func capture(_ password: SecretBytes, for user: UserName, record: UserRecord?) throws(KeychainError) {
    _ = try? keychain.delete(LoginSecret.query, for: user)
    deleteLegacy(for: user)
    try keychain.add(
      Keychain.NewItem(
        service: KeychainOptions.loginSecretService, account: KeychainOptions.loginSecretAccount,
        label: LoginSecret.label, accessGroup: KeychainOptions.moduleAccessGroup,
        accessibility: .whenPasscodeSetThisDeviceOnly, flags: flags, data: password.bytes),
      for: user, record: record, hasher: hasher)
  }

  /// The login secret, released by what a successful evaluation established; nil when none is stored.
  /// A biometryCurrentSet secret from before an enrolment change is deleted (it is captured again at the next
  /// password login).
  package func release(
    for user: UserName, authorization: KeychainAuthorization, currentDomainState: String?, lock: DeviceLock
  ) throws(KeychainError) -> SecretBytes? {
    guard let item = try keychain.matching(LoginSecret.query, for: user).first else { return nil }
    if keychain.isInvalidated(item, currentDomainState: currentDomainState) {
      try keychain.delete(LoginSecret.query, for: user)
      throw .itemNotFound
    }
    return SecretBytes(
      try keychain.open(item, for: user, authorization: authorization, lock: lock, hasher: hasher))
  }

  /// What a password change did to the login secret.
  package enum ChangeResult: Equatable, Sendable {
    /// No login secret was stored.
    case none
    /// The old password matched: the secret now holds the new one.
    case resealed
    /// The old password did not match (or the secret could not be read): the secret was deleted.
    case dropped
  }

  /// Keeps the login secret in step with a password change from `old` to `new`: re-sealed when `old` is the
  /// stored secret, otherwise deleted, never left stale. The module reads it with its own authority (the password
  /// line runs after pam_unix accepted the old password).
  package func passwordChanged(
    for user: UserName, from old: SecretBytes, to new: SecretBytes, currentDomainState: String?
  ) throws(KeychainError) -> ChangeResult {
    deleteLegacy(for: user)
    guard let item = try keychain.matching(LoginSecret.query, for: user).first else { return .none }
    let authority = KeychainAuthorization(biometry: true, domainState: currentDomainState, passcode: SecretBytes([]))
    let stored = try? keychain.open(item, for: user, authorization: authority, lock: .unlocked, hasher: hasher)
    guard let stored, constantTimeEquals(stored, old.bytes), !new.isEmpty else {
      try keychain.delete(LoginSecret.query, for: user)
      return .dropped
    }
    _ = try keychain.update(LoginSecret.query, for: user, data: new.bytes, label: nil, hasher: hasher)
    return .resealed
  }
}
