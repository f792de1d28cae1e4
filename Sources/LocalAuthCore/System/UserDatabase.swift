import CSyscalls

// Part of the C fence (Syscalls.swift): the passwd and shadow databases (NSS), and this process's session.

extension Syscalls {
  /// The name of `uid` in the passwd database (getpwuid_r); nil when it has none or it cannot be read.
  static func userName(of uid: UInt32) -> String? {
    var entry = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
      return nil
    }
    return String(cString: name)
  }

  /// The uid of the user called `name` in the passwd database (getpwnam); nil when there is none (a public
  /// default argument: HelperService.serve).
  @usableFromInline
  static func userID(named name: String) -> UInt32? {
    getpwnam(name).map { UInt32($0.pointee.pw_uid) }
  }

  /// The shadow entry of `name` (getspnam_r, root only): the hash and the aging fields, negative ones as nil;
  /// nil when there is none or it cannot be read. The buffer that held the hash is wiped.
  static func shadowEntry(named name: String) -> ShadowEntry? {
    var entry = spwd()
    var found: UnsafeMutablePointer<spwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    defer { for i in buffer.indices { buffer[i] = 0 } }
    let status = getspnam_r(name, &entry, &buffer, buffer.count, &found)
    guard status == 0, found != nil, let pointer = entry.sp_pwdp else { return nil }
    func day(_ value: Int) -> Int? { value < 0 ? nil : value }
    return ShadowEntry(
      hash: String(cString: pointer), lastChange: day(entry.sp_lstchg), maximumAge: day(entry.sp_max),
      inactiveDays: day(entry.sp_inact), expiresOn: day(entry.sp_expire))
  }

  /// The id of this process's terminal session, its leader's pid (getsid(0)); -1 when it cannot be read.
  static var sessionID: Int32 { getsid(0) }
}
