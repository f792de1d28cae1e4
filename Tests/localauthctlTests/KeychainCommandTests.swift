import Foundation
import LocalAuthCore
import Testing

/// `localauthctl keychain list|delete` and the keychain line of `status`: names and protection, never the data.
@Suite(.serialized, .enabled(if: CLIRunner.isRoot, "needs root: state files must belong to root"))
struct KeychainCommandTests {
  @Test func listStatusAndDeleteNeverShowTheData() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    #expect(try cli.run(["passcode", "set", "alice"], input: "1234\n").status == 0)
    let empty = try cli.run(["keychain", "list", "alice"])
    #expect(empty.stdout == "Keychain: no items; no device key yet.\n")

    let keychain = Keychain(root: cli.stateDir, tcti: "device:/nonexistent/tpmrm0")
    let alice = try UserName("alice")
    let record = try FileStateStore(root: cli.stateDir).load(alice)
    try keychain.add(
      Keychain.NewItem(
        service: "mail", account: "alice@example.org", label: "Mail", accessibility: .whenPasscodeSetThisDeviceOnly,
        flags: [.biometryAny, .or, .devicePasscode], data: Array("hunter2-secret".utf8)),
      for: alice, record: record, hasher: PasscodeHasher(cost: 1))

    let list = try cli.run(["keychain", "list", "alice"])
    #expect(list.status == 0)
    #expect(
      list.stdout == """
        Keychain: 1 item; device key a root-only key file.
          service "mail", account "alice@example.org", no group, label "Mail"; WhenPasscodeSetThisDeviceOnly; access control biometryAny|devicePasscode|or; key device

        """)
    let json = try cli.run(["keychain", "list", "alice", "--json"])
    let items = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
    #expect(items.first?["accessControl"] as? String == "biometryAny|devicePasscode|or")
    #expect(items.first?["accessGroup"] as? String == "")
    #expect(items.first?["reservedGroup"] as? Bool == false)
    let status = try cli.run(["status", "alice"])
    #expect(status.stdout.hasSuffix("Keychain: 1 item; device key a root-only key file.\n"))
    let statusJSON = try #require(try JSONSerialization.jsonObject(with: Data(try cli.run(["status", "alice", "--json"]).stdout.utf8)) as? [String: Any])
    #expect((statusJSON["keychain"] as? [String: Any])?["protection"] as? String == "keyFile")
    for output in [list.stdout, json.stdout, status.stdout] { #expect(!output.contains("hunter2")) }

    #expect(try cli.run(["keychain", "delete", "alice"]).status == 64, "nothing selected is a usage error")
    let none = try cli.run(["keychain", "delete", "alice", "--service", "web"])
    #expect(none.status == 1)
    #expect(none.stderr == "Error: No keychain item of alice matches.\n")
    let deleted = try cli.run(["keychain", "delete", "alice", "--service", "mail"])
    #expect(deleted.stdout == "Deleted 1 keychain item of alice.\n")
    #expect(try keychain.items(for: alice).isEmpty)
  }

  @Test func resetKeepsTheKeychainAndResetKeychainNamesWhatItDeletes() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    #expect(try cli.run(["passcode", "set", "alice"], input: "1234\n").status == 0)
    let keychain = Keychain(root: cli.stateDir, tcti: "device:/nonexistent/tpmrm0")
    let alice = try UserName("alice")
    let hasher = PasscodeHasher(cost: 1)
    let record = try FileStateStore(root: cli.stateDir).load(alice)
    try LoginSecret(keychain: keychain, flags: .userPresence, hasher: hasher)
      .capture(SecretBytes("unix-password"), for: alice, record: record)
    try keychain.add(
      Keychain.NewItem(
        service: "mail", account: "alice@example.org", label: "Mail", accessibility: .whenPasscodeSetThisDeviceOnly,
        flags: [.devicePasscode], data: Array("hunter2-secret".utf8)),
      for: alice, record: record, hasher: hasher)
    for wrong in ["1111", "2222", "3333", "4444", "5555"] {
      #expect(try cli.run(["evaluate", "alice", "--reason", "unlock"], input: wrong + "\n").status == 1)
    }
    #expect(try cli.statusJSON("alice")["passcodeFailures"] as? Int == 5)

    let reset = try cli.run(["reset", "alice"])
    #expect(reset.status == 0)
    #expect(reset.stdout == "Reset counters, lockout and delays for alice.\n")
    let status = try cli.statusJSON("alice")
    #expect(status["passcodeFailures"] as? Int == 0)
    #expect(status["passcodeNextAllowed"] is NSNull)
    #expect((status["recentFailures"] as? [Any])?.isEmpty == true)
    #expect(status["passcodeSet"] as? Bool == true)
    let items = try keychain.items(for: alice)
    #expect(items.count == 2, "reset deleted keychain items")
    #expect(FileManager.default.fileExists(atPath: cli.stateDir + "/keychain/alice/passcode.key"))
    let authorization = KeychainAuthorization(biometry: true, passcode: SecretBytes("1234"))
    for (item, data) in [("login", "unix-password"), ("alice@example.org", "hunter2-secret")] {
      let found = try #require(items.first { $0.account == item })
      let opened = try keychain.open(found, for: alice, authorization: authorization, lock: .unlocked, hasher: hasher)
      #expect(String(decoding: opened, as: UTF8.self) == data)
    }

    let wipe = try cli.run(["reset", "alice", "--keychain"])
    #expect(wipe.status == 0)
    let lines = wipe.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(Array(lines.prefix(2)) == ["Reset counters, lockout and delays for alice.", "Deleted 2 keychain items of alice:"])
    #expect(
      Set(lines.dropFirst(2)) == [
        "  service \"mail\", account \"alice@example.org\", no group, label \"Mail\"; WhenPasscodeSetThisDeviceOnly; access control devicePasscode; key passcode",
        "  service \"pam_localauth\", account \"login\", group \"pam_localauth.module\" (reserved: the module's), label \"Login password (pam_localauth)\"; WhenPasscodeSetThisDeviceOnly; access control userPresence; key device",
        "",
      ])
    #expect(!wipe.stdout.contains("hunter2") && !wipe.stdout.contains("unix-password"))
    #expect(try keychain.items(for: alice).isEmpty)
    let again = try cli.run(["reset", "alice", "--keychain"])
    #expect(again.stdout == "Reset counters, lockout and delays for alice.\nDeleted no keychain item of alice: there was none.\n")
  }

  /// Issue 37, finding V: an app's item named like the login secret is told from the module's by its access group.
  @Test func listShowsEachItemsAccessGroupSoAnAppsLoginItemIsToldFromTheModules() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    #expect(try cli.run(["passcode", "set", "alice"], input: "1234\n").status == 0)
    let keychain = Keychain(root: cli.stateDir, tcti: "device:/nonexistent/tpmrm0")
    let alice = try UserName("alice")
    let hasher = PasscodeHasher(cost: 1)
    let record = try FileStateStore(root: cli.stateDir).load(alice)
    try LoginSecret(keychain: keychain, flags: .userPresence, hasher: hasher)
      .capture(SecretBytes("unix-password"), for: alice, record: record)
    // An app's own pam_localauth/login items: one in its group, one in none whose label tries to pass for the
    // module's line.
    try keychain.add(
      Keychain.NewItem(
        service: "pam_localauth", account: "login", label: "Notes login", accessGroup: "com.example.notes",
        accessibility: .whenUnlocked, data: Array("app-secret".utf8)),
      for: alice, record: record, hasher: hasher)
    try keychain.add(
      Keychain.NewItem(
        service: "pam_localauth", account: "login",
        label: "x\"; WhenUnlocked\n  service \"pam_localauth\", account \"login\", group \"pam_localauth.module\"\u{202E}",
        accessibility: .whenUnlocked, data: Array("app-secret".utf8)),
      for: alice, record: record, hasher: hasher)

    let list = try cli.run(["keychain", "list", "alice"])
    #expect(list.status == 0)
    let lines = list.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 4, "one line per item, whatever their labels hold: \(list.stdout)")
    #expect(
      Set(lines.dropFirst()) == [
        "  service \"pam_localauth\", account \"login\", group \"pam_localauth.module\" (reserved: the module's), label \"Login password (pam_localauth)\"; WhenPasscodeSetThisDeviceOnly; access control userPresence; key device",
        "  service \"pam_localauth\", account \"login\", group \"com.example.notes\", label \"Notes login\"; WhenUnlocked; access control none; key device",
        "  service \"pam_localauth\", account \"login\", no group, label \"x\\x22; WhenUnlocked\\x0A  service \\x22pam_localauth\\x22, account \\x22login\\x22, group \\x22pam_localauth.module\\x22\\u{202E}\"; WhenUnlocked; access control none; key device",
      ], "\(list.stdout)")
    #expect(!list.stdout.contains("app-secret") && !list.stdout.contains("unix-password"))

    let json = try cli.run(["keychain", "list", "alice", "--json"])
    let items = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
    #expect(items.count == 3)
    let groups = Set(items.map { "\($0["accessGroup"] as? String ?? "?")=\($0["reservedGroup"] as? Bool ?? false)" })
    #expect(groups == ["pam_localauth.module=true", "com.example.notes=false", "=false"])
    #expect(!json.stdout.contains("app-secret") && !json.stdout.contains("unix-password"))

    // The administrator deletes the app's items by group, and the login secret stays.
    let deleteNotes = try cli.run(["keychain", "delete", "alice", "--service", "pam_localauth", "--group", "com.example.notes"])
    #expect(deleteNotes.stdout == "Deleted 1 keychain item of alice.\n")
    #expect(try cli.run(["keychain", "delete", "alice", "--group", ""]).stdout == "Deleted 1 keychain item of alice.\n")
    #expect(try keychain.items(for: alice).map(\.accessGroup) == ["pam_localauth.module"])
    #expect(try cli.run(["keychain", "delete", "alice", "--all", "--group", "x"]).status == 64)
  }
}
