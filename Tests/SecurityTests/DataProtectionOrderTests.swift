import Foundation
import LocalAuthCore
import LocalAuthentication
import Security
import Testing

/// Data protection classes in Apple's order (issue 40, item 9; docs/KEYCHAIN.md, "Data protection"): `WhenUnlocked`
/// is the stricter class, `AfterFirstUnlock` readable from the first unlock until the restart, and a user without
/// a passcode is a device without one.
@Suite("Data protection order", .serialized)
struct DataProtectionOrderTests {
  @Test("the device's lock: WhenUnlocked needs it unlocked now, AfterFirstUnlock only once since boot")
  func lockStates() {
    for accessibility in KeychainAccessibility.allCases {
      #expect(DeviceLock.unlocked.allowsReading(accessibility))
      #expect(DeviceLock.noPasscode.allowsReading(accessibility))
      #expect(!DeviceLock.lockedSinceBoot.allowsReading(accessibility))
      let afterFirstUnlock = accessibility == .afterFirstUnlock || accessibility == .afterFirstUnlockThisDeviceOnly
      #expect(DeviceLock.locked.allowsReading(accessibility) == afterFirstUnlock, "\(accessibility.name)")
    }
    var record = UserRecord()
    #expect(DeviceLock.of(record, bootID: "boot-1") == .noPasscode)
    record.passcodeHash = "$y$j9T$salt$hash"
    #expect(DeviceLock.of(record, bootID: "boot-1") == .lockedSinceBoot)
    record.lastPasscodeBootID = "boot-1"
    #expect(DeviceLock.of(record, bootID: "boot-1") == .unlocked)
    #expect(DeviceLock.of(record, bootID: "boot-1", screenLocked: true) == .locked)
    #expect(DeviceLock.of(record, bootID: "boot-2", screenLocked: false) == .lockedSinceBoot)
    #expect(DeviceLock.of(nil, bootID: "boot-1") == .noPasscode)
  }

  @Test("WhenUnlocked after a restart: errSecInteractionNotAllowed until the passcode, like AfterFirstUnlock")
  func whenUnlockedAfterRestart() throws {
    let world = try KeychainWorld.ready()
    try world.run {
      #expect(addItem("wu", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      #expect(addItem("afu", flags: nil, protection: kSecAttrAccessibleAfterFirstUnlock) == errSecSuccess)
      #expect(readItem("wu") == (errSecSuccess, "s3cret"))
      world.clock.reboot(to: "boot-2")
      #expect(readItem("wu").0 == errSecInteractionNotAllowed)
      #expect(readItem("afu").0 == errSecInteractionNotAllowed)
      let entered = try world.enterPasscode("1234")
      #expect(entered == .success(.passcode))
      #expect(readItem("wu") == (errSecSuccess, "s3cret"))
      #expect(readItem("afu") == (errSecSuccess, "s3cret"))
    }
  }

  @Test("KeychainAccess's overwrite: an item added WhenUnlocked and updated to AfterFirstUnlock stays readable")
  func whenUnlockedUpdatedToAfterFirstUnlock() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(addItem("ka", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "tests", kSecAttrAccount as String: "ka",
      ]
      let update: [String: Any] = [
        kSecValueData as String: Data("v2".utf8), kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
      ]
      #expect(SecItemUpdate(query as CFDictionary, update as CFDictionary) == errSecSuccess)
      #expect(readItem("ka") == (errSecSuccess, "v2"))
    }
  }

  @Test("a user without a passcode: every class readable, WhenPasscodeSetThisDeviceOnly refused at add")
  func noPasscode() throws {
    let world = try KeychainWorld()
    world.run {
      #expect(addItem("afu", flags: nil, protection: kSecAttrAccessibleAfterFirstUnlock) == errSecSuccess)
      #expect(addItem("wu", flags: nil, protection: kSecAttrAccessibleWhenUnlockedThisDeviceOnly) == errSecSuccess)
      #expect(readItem("afu") == (errSecSuccess, "s3cret"))
      #expect(readItem("wu") == (errSecSuccess, "s3cret"))
      world.clock.reboot(to: "boot-2")
      #expect(readItem("afu") == (errSecSuccess, "s3cret"))
      #expect(readItem("wu") == (errSecSuccess, "s3cret"))
      #expect(addItem("wps", flags: nil, protection: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly) != errSecSuccess)
      #expect(readItem("wps").0 == errSecItemNotFound)
    }
  }
}
