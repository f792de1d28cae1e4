/// The keychain's options: where device keys are sealed, and the login secret that hands the user's password to
/// pam_gnome_keyring and its peers (docs/KEYCHAIN.md).
public struct KeychainOptions: Equatable, Sendable {
  /// The TPM's TCTI for new device keys; nil for none. A missing device node means no TPM.
  package var tpm: String? = "device:/dev/tpmrm0"
  /// `capture_authtok`: store PAM_AUTHTOK as the login secret (an auth line after pam_unix), or keep it in step
  /// with a password change (a password line after pam_unix).
  package var captureAuthToken = false
  /// `release_authtok`: after a successful evaluation in a local session, set PAM_AUTHTOK from the login secret.
  package var releaseAuthToken = false
  /// `release_on_reuse`: also release after a success the reuse window granted.
  package var releaseOnReuse = false
  /// `login_secret=`: the login secret's access control, userPresence (default) or biometryCurrentSet.
  package var loginSecretFlags: KeychainAccessFlags = .userPresence
  /// `keychain_max_items=` and `keychain_max_bytes=`: each user's quota (an add beyond it is errSecAllocate).
  package var limits = KeychainLimits()

  /// The defaults.
  public init() {}

  /// The login secret's service and account in the user's keychain.
  package static let loginSecretService = "pam_localauth"
  /// The login secret's account.
  package static let loginSecretAccount = "login"
  /// The access group of the module's own items (the login secret): reserved (`Keychain.isReserved`), so no app's
  /// keychain call can read, change, add to or delete them.
  package static let moduleAccessGroup = "pam_localauth.module"
}
