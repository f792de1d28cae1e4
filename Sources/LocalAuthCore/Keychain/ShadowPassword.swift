/// The user's Unix password as /etc/shadow holds it: the login secret is captured only when PAM_AUTHTOK
/// verifies against it, so a capture line placed where a failed password can reach it stores nothing.
package enum ShadowPassword {
  /// True when `password` hashes to the user's shadow entry (yescrypt, SHA-512 … as libxcrypt knows them),
  /// compared in constant time; false when there is no readable entry, a locked one, or no match.
  package static func verify(_ password: SecretBytes, for user: UserName) -> Bool {
    guard let stored = hash(of: user), stored.hasPrefix("$") else { return false }
    guard let computed = try? PasscodeHasher().rehash(password, like: stored) else { return false }
    return constantTimeEquals(Array(computed.utf8), Array(stored.utf8))
  }

  /// The shadow hash of `user`; nil when there is no entry or it cannot be read (getspnam_r).
  static func hash(of user: UserName) -> String? { entry(of: user)?.hash }

  /// The shadow entry of `user` (hash and aging fields); nil when there is none or it cannot be read (getspnam_r).
  static func entry(of user: UserName) -> ShadowEntry? { Syscalls.shadowEntry(named: user.value) }
}
