/// Which secret the passcode prompt checks (`passcode=`).
public enum PasscodeSource: String, Equatable, Sendable {
  /// The module's own passcode, set with `localauthctl passcode set` or through `passwd` on its line (the default).
  case separate
  /// The user's login password, as /etc/shadow holds it (macOS's behaviour: Touch ID falls back to it).
  case account
}

/// One /etc/shadow entry, as getspnam gives it: the hash and the aging fields that decide whether pam_unix
/// would accept the password. Days count from 1970-01-01; nil stands for an empty field (getspnam's -1).
public struct ShadowEntry: Equatable, Sendable {
  /// The password field (a libxcrypt hash, or `!`/`*`-prefixed when locked, or empty).
  package var hash: String
  /// The day of the last change (`sp_lstchg`); 0 means the password must be changed at the next login.
  package var lastChange: Int?
  /// Days the password is valid after a change (`sp_max`).
  package var maximumAge: Int?
  /// Days after the password expired during which it still opens the account to change it (`sp_inact`).
  package var inactiveDays: Int?
  /// The day the account expires (`sp_expire`).
  package var expiresOn: Int?

  /// Describes an entry.
  public init(hash: String, lastChange: Int? = nil, maximumAge: Int? = nil, inactiveDays: Int? = nil, expiresOn: Int? = nil) {
    self.hash = hash
    self.lastChange = lastChange
    self.maximumAge = maximumAge
    self.inactiveDays = inactiveDays
    self.expiresOn = expiresOn
  }

  /// Why pam_unix would refuse this password `today` (days since 1970-01-01), or nil when it is usable.
  ///
  /// The order and comparisons are pam_unix's (`check_shadow_expiry` in passverify.c): the account's expiry,
  /// a change forced by root (last change 0), the password expired beyond its inactive period, then the
  /// password aged. An expired password must be changed through pam_unix first, so it is not a passcode.
  package func refusal(today: Int) -> AccountRefusal? {
    guard !hash.isEmpty else { return .noPassword }
    if hash.hasPrefix("!") || hash.hasPrefix("*") { return .locked }
    guard hash.hasPrefix("$") else { return .unsupportedHash }
    if let expiresOn, today >= expiresOn { return .accountExpired }
    guard let lastChange else { return nil }
    if lastChange == 0 { return .changeRequired }
    if today < lastChange { return nil }
    guard let maximumAge else { return nil }
    let age = today - lastChange
    if let inactiveDays, age > maximumAge, age > inactiveDays, age > maximumAge + inactiveDays { return .inactive }
    if age > maximumAge { return .passwordExpired }
    return nil
  }
}

/// Why a user's login password cannot be the passcode now; each case names it as pam_unix's log would.
public enum AccountRefusal: Error, Equatable, Sendable, CustomStringConvertible {
  /// No shadow entry could be read (no entry, or LDAP/SSSD users, whose password is not in /etc/shadow).
  case noEntry
  /// The password field is empty.
  case noPassword
  /// The password is locked (`!` or `*` at its start: `usermod -L`, `passwd -l`, or no password ever set).
  case locked
  /// The password field is not a hash libxcrypt knows (no leading `$`: a DES hash or garbage).
  case unsupportedHash
  /// The account's expiry date has passed (`chage -E`).
  case accountExpired
  /// root forced a change at the next login (last change 0, `passwd -e`).
  case changeRequired
  /// The password expired longer ago than its inactive period: the account is disabled.
  case inactive
  /// The password is older than its maximum age and must be changed.
  case passwordExpired

  public var description: String {
    switch self {
    case .noEntry: "the user has no password in /etc/shadow"
    case .noPassword: "the password is empty"
    case .locked: "the password is locked"
    case .unsupportedHash: "the password hash is not one libxcrypt verifies"
    case .accountExpired: "the account has expired (account expired)"
    case .changeRequired: "the password has expired (root enforced)"
    case .inactive: "the account has expired (failed to change password)"
    case .passwordExpired: "the password has expired (password aged)"
    }
  }
}

/// The system's password database, as the passcode check reads it; tests give fake entries.
public protocol AccountPasswords: AnyObject, Sendable {
  /// The shadow entry of `user`; nil when there is none or it cannot be read.
  func entry(for user: UserName) -> ShadowEntry?
}

extension AccountPasswords {
  /// The usable hash of `user` on `today`, or why there is none.
  func usableHash(for user: UserName, today: Int) -> Result<String, AccountRefusal> {
    guard let entry = entry(for: user) else { return .failure(.noEntry) }
    if let refusal = entry.refusal(today: today) { return .failure(refusal) }
    return .success(entry.hash)
  }
}

/// /etc/shadow through getspnam_r: readable by root only (the module as root, or the setuid helper).
public final class SystemAccountPasswords: AccountPasswords {
  /// The system's database.
  public init() {}

  public func entry(for user: UserName) -> ShadowEntry? { ShadowPassword.entry(of: user) }
}

extension WallTime {
  /// The day since 1970-01-01 (UTC) this time falls on, as /etc/shadow counts days.
  var shadowDay: Int {
    guard seconds.isFinite else { return Int.max }
    return Int((seconds / 86_400).rounded(.down))
  }
}
