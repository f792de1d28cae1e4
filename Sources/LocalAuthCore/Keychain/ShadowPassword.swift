import CSyscalls

/// The user's Unix password as /etc/shadow holds it: the login secret is captured only when PAM_AUTHTOK
/// verifies against it, so a capture line placed where a failed password can reach it stores nothing.
public enum ShadowPassword {
  /// True when `password` hashes to the user's shadow entry (yescrypt, SHA-512 … as libxcrypt knows them),
  /// compared in constant time; false when there is no readable entry, a locked one, or no match.
  public static func verify(_ password: SecretBytes, for user: UserName) -> Bool {
    guard let stored = hash(of: user), stored.hasPrefix("$") else { return false }
    guard let computed = try? PasscodeHasher().rehash(password, like: stored) else { return false }
    return constantTimeEquals(Array(computed.utf8), Array(stored.utf8))
  }

  /// The shadow hash of `user`; nil when there is no entry or it cannot be read (getspnam_r).
  static func hash(of user: UserName) -> String? { entry(of: user)?.hash }

  /// The shadow entry of `user` (hash and aging fields); nil when there is none or it cannot be read (getspnam_r).
  static func entry(of user: UserName) -> ShadowEntry? {
    var entry = spwd()
    var found: UnsafeMutablePointer<spwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    defer { for i in buffer.indices { buffer[i] = 0 } }
    let status = getspnam_r(user.value, &entry, &buffer, buffer.count, &found)
    guard status == 0, found != nil, let pointer = entry.sp_pwdp else { return nil }
    func day(_ value: Int) -> Int? { value < 0 ? nil : value }
    return ShadowEntry(
      hash: String(cString: pointer), lastChange: day(entry.sp_lstchg), maximumAge: day(entry.sp_max),
      inactiveDays: day(entry.sp_inact), expiresOn: day(entry.sp_expire))
  }
}
