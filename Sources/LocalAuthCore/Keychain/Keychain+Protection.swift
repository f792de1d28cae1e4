/// An item's protection (kSecAttrAccessible and kSecAttrAccessControl), checked and given the same way by
/// SecItemAdd and SecItemUpdate (docs/KEYCHAIN.md, "Access control").
extension Keychain {
  /// The accessibility and access control an add or an update gives an item, checked against the user's record:
  /// the flags must be valid for a password, `WhenPasscodeSetThisDeviceOnly` needs a passcode, `biometryCurrentSet`
  /// keeps the enrolled set it was given under, and `applicationPassword` needs the password when the item has none.
  struct Protection {
    let accessibility: KeychainAccessibility
    let flags: KeychainAccessFlags?
    /// The enrolled set a biometryCurrentSet item is bound to; nil for any other.
    let domainState: String?

    /// Checks a protection for an item that has (`hasPassword`) or has not an application password already.
    init(
      accessibility: KeychainAccessibility, flags: KeychainAccessFlags?, record: UserRecord?,
      applicationPassword: SecretBytes?, hasPassword: Bool
    ) throws(KeychainError) {
      if let flags {
        if let problem = flags.validationProblem() { throw .parameter(problem) }
        if flags.contains(.privateKeyUsage) { throw .parameter("privateKeyUsage does not apply to passwords") }
      }
      if accessibility == .whenPasscodeSetThisDeviceOnly && record?.passcodeHash == nil {
        throw .notAvailable("no passcode is set, and the class WhenPasscodeSetThisDeviceOnly needs one")
      }
      let constraints = flags ?? []
      if constraints.contains(.biometryCurrentSet) {
        guard let state = record?.domainState else {
          throw .notAvailable("nothing is enrolled, and biometryCurrentSet needs the enrolled set")
        }
        domainState = state
      } else {
        domainState = nil
      }
      if constraints.contains(.applicationPassword) && !hasPassword && (applicationPassword?.isEmpty ?? true) {
        throw .parameter("an applicationPassword item needs the password")
      }
      self.accessibility = accessibility
      self.flags = flags
    }

    /// Gives `item` this protection: its key source follows the flags, and an applicationPassword item that has no
    /// password setting yet gets one from `applicationPassword` (hashed with `hasher`'s cost).
    func apply(to item: inout KeychainItem, applicationPassword: SecretBytes?, hasher: PasscodeHasher) throws(KeychainError) {
      let constraints = flags ?? []
      if constraints.contains(.applicationPassword) {
        if item.passwordSetting == nil {
          guard let password = applicationPassword, !password.isEmpty else {
            throw .parameter("an applicationPassword item needs the password")
          }
          do throws(PasscodeError) {
            let hash = try hasher.hash(password)
            item.passwordSetting = String(hash[..<(hash.utf8.lastIndex(of: UInt8(ascii: "$")) ?? hash.endIndex)])
          } catch { throw .notAvailable("the application password cannot be hashed (\(error))") }
        }
      } else {
        item.passwordSetting = nil
      }
      item.accessibility = accessibility
      item.flags = flags
      item.domainState = domainState
      item.keySource = constraints.isPasscodeKeyed ? .passcode : .device
      if item.keySource == .device { item.ephemeralPublicKey = [] }
    }
  }
}
