/// The device's lock as data protection sees it (kSecAttrAccessible*, docs/KEYCHAIN.md, "Data protection"): Apple's
/// three states, plus a device without a passcode, on which every class is readable.
///
/// On Apple's systems `WhenUnlocked` (and `WhenPasscodeSetThisDeviceOnly`) items are readable only while the
/// device is unlocked, and `AfterFirstUnlock` items from the first unlock after a restart until the next restart:
/// whatever can read a `WhenUnlocked` item can read an `AfterFirstUnlock` one. Here the first unlock is the
/// user's first accepted passcode in this boot (the record's `passcode.last-success-boot`); "locked now" is a
/// screen locker's lock where the desktop reports one (logind's LockedHint), and nothing otherwise: without it,
/// a device unlocked once in this boot counts as unlocked.
package enum DeviceLock: Equatable, Sendable {
  /// The user has no passcode: as on a device without one, every class is readable (and
  /// `WhenPasscodeSetThisDeviceOnly` items cannot be added).
  case noPasscode
  /// The passcode has not been accepted since the machine started.
  case lockedSinceBoot
  /// Unlocked once in this boot, locked now (a screen locker holds the user's desktop).
  case locked
  /// Unlocked.
  case unlocked

  /// The state of `record`'s user in the boot `bootID`; `screenLocked` is true when the desktop reports the user's
  /// sessions locked (nil or false when it reports nothing, or they are unlocked).
  package static func of(_ record: UserRecord?, bootID: String?, screenLocked: Bool? = nil) -> DeviceLock {
    guard let record, record.passcodeHash != nil else { return .noPasscode }
    guard let bootID, record.lastPasscodeBootID == bootID else { return .lockedSinceBoot }
    return screenLocked == true ? .locked : .unlocked
  }

  /// True when an item of `accessibility` may be read in this state.
  package func allowsReading(_ accessibility: KeychainAccessibility) -> Bool {
    switch self {
    case .noPasscode, .unlocked: true
    case .locked: accessibility.readableWhileLocked
    case .lockedSinceBoot: false
    }
  }
}
