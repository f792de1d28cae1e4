import Foundation
import LocalAuthCore
import Security
import Testing

/// The one table of Apple's status codes (Sources/LocalAuthCore/Keychain/SecStatus*.swift), as Security exposes it.
@Suite("Apple's status codes: one table")
struct SecStatusTableTests {
  @Test("every code SecBase.h defines, once: 379 entries, unique values and unique errSec names")
  func unique() {
    let entries = SecStatusTable.entries
    #expect(entries.count == 379)
    #expect(Set(entries.map(\.code)).count == entries.count)
    #expect(Set(entries.map { $0.name.description }).count == entries.count)
    #expect(entries.allSatisfy { $0.name.description.hasPrefix("errSec") })
    #expect(SecStatusTable.entry(for: 12345) == nil)
  }

  @Test("Security's globals are the table's: Apple's names with Apple's values")
  func applesNames() {
    let expected: [(OSStatus, String)] = [
      (errSecSuccess, "errSecSuccess"), (errSecUnimplemented, "errSecUnimplemented"), (errSecIO, "errSecIO"),
      (errSecParam, "errSecParam"), (errSecAllocate, "errSecAllocate"), (errSecUserCanceled, "errSecUserCanceled"),
      (errSecCoreFoundationUnknown, "errSecCoreFoundationUnknown"), (errSecMissingEntitlement, "errSecMissingEntitlement"),
      (errSecNotAvailable, "errSecNotAvailable"), (errSecAuthFailed, "errSecAuthFailed"),
      (errSecDuplicateItem, "errSecDuplicateItem"), (errSecItemNotFound, "errSecItemNotFound"),
      (errSecInteractionNotAllowed, "errSecInteractionNotAllowed"), (errSecDecode, "errSecDecode"),
      (errSecVerifyFailed, "errSecVerifyFailed"), (errSecNoSuchAttr, "errSecNoSuchAttr"),
      (errSecNoSuchClass, "errSecNoSuchClass"), (errSecDiskFull, "errSecDiskFull"),
    ]
    for (code, name) in expected {
      #expect(SecStatusTable.entry(for: code)?.name.description == name, "\(code)")
    }
    #expect([errSecParam, errSecAllocate, errSecDecode, errSecMissingEntitlement, errSecItemNotFound] == [-50, -108, -26275, -34018, -25300])
    #expect(errSecCoreFoundationUnknown == -4960 && errSecVerifyFailed == -67808 && errSecInternalComponent == -2070)
  }

  @Test("Security re-exports every name of the table (Sources/Security/SecBase.swift), and nothing else")
  func everyNameReexported() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let source = try String(contentsOf: root.appendingPathComponent("Sources/Security/SecBase.swift"), encoding: .utf8)
    let prefix = "@_exported import let LocalAuthCore."
    let names = Set(source.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
    let table = Set(SecStatusTable.entries.map { $0.name.description })
    #expect(table.subtracting(names).isEmpty, "not re-exported: \(table.subtracting(names).sorted())")
    #expect(names.subtracting(table) == ["errSecDskFull"])
  }

  @Test("the keychain's errors map to codes of the table")
  func keychainErrors() {
    let errors: [(KeychainError, String)] = [
      (.parameter("x"), "errSecParam"), (.duplicateItem, "errSecDuplicateItem"), (.itemNotFound, "errSecItemNotFound"),
      (.authenticationFailed, "errSecAuthFailed"), (.userCanceled, "errSecUserCanceled"),
      (.interactionNotAllowed, "errSecInteractionNotAllowed"), (.notAvailable("x"), "errSecNotAvailable"),
      (.missingEntitlement("x"), "errSecMissingEntitlement"), (.allocate("x"), "errSecAllocate"),
    ]
    for (error, name) in errors {
      #expect(SecStatusTable.entry(for: error.status)?.name.description == name)
    }
  }

  @Test("SecCopyErrorMessageString gives Apple's message from the table; nil for a code Apple does not define")
  func messages() {
    #expect(SecCopyErrorMessageString(errSecItemNotFound, nil).map { $0 as String } == "The specified item could not be found in the keychain.")
    #expect(SecCopyErrorMessageString(errSecParam, nil).map { $0 as String } == "One or more parameters passed to a function were not valid.")
    #expect(SecCopyErrorMessageString(errSecMissingEntitlement, nil).map { $0 as String } == "A required entitlement isn't present.")
    #expect(SecCopyErrorMessageString(errSecDecode, nil).map { $0 as String } == "Unable to decode the provided data.")
    #expect(SecCopyErrorMessageString(12345, nil) == nil)
    let withMessage = SecStatusTable.entries.filter { $0.message.utf8CodeUnitCount > 0 }
    #expect(withMessage.count > 360)
    #expect(withMessage.allSatisfy { SecCopyErrorMessageString($0.code, nil).map { $0 as String } == $0.message.description })
  }

  @Test("each code's message is the table's: SecCopyErrorMessageString is nil exactly where the table has none")
  func messagesFromTable() {
    for entry in SecStatusTable.entries {
      let message = SecCopyErrorMessageString(entry.code, nil).map { $0 as String }
      #expect(message == (entry.message.utf8CodeUnitCount > 0 ? entry.message.description : nil), "\(entry.name)")
    }
    #expect(SecCopyErrorMessageString(errSecInternalComponent, nil) == nil)
  }

  @Test("every keychain error's status is a code of the table")
  func everyKeychainStatus() {
    let errors: [KeychainError] = [
      .parameter("x"), .duplicateItem, .itemNotFound, .authenticationFailed, .userCanceled, .interactionNotAllowed,
      .notAvailable("x"), .storage(.permissionDenied(path: "x")), .missingEntitlement("x"), .allocate("x"), .unimplemented("x"),
    ]
    for error in errors { #expect(SecStatusTable.entry(for: error.status) != nil, "\(error)") }
    #expect(KeychainError.storage(.permissionDenied(path: "x")).status == errSecIO)
    #expect(KeychainError.unimplemented("x").status == errSecUnimplemented)
  }
}
