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
          service "mail", account "alice@example.org", label "Mail"; WhenPasscodeSetThisDeviceOnly; access control biometryAny|devicePasscode|or; key device

        """)
    let json = try cli.run(["keychain", "list", "alice", "--json"])
    let items = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
    #expect(items.first?["accessControl"] as? String == "biometryAny|devicePasscode|or")
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
      let opened = try keychain.open(found, for: alice, authorization: authorization, unlockedThisBoot: true, hasher: hasher)
      #expect(String(decoding: opened, as: UTF8.self) == data)
    }

    let wipe = try cli.run(["reset", "alice", "--keychain"])
    #expect(wipe.status == 0)
    let lines = wipe.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(Array(lines.prefix(2)) == ["Reset counters, lockout and delays for alice.", "Deleted 2 keychain items of alice:"])
    #expect(
      Set(lines.dropFirst(2)) == [
        "  service \"mail\", account \"alice@example.org\", label \"Mail\"; WhenPasscodeSetThisDeviceOnly; access control devicePasscode; key passcode",
        "  service \"pam_localauth\", account \"login\", label \"Login password (pam_localauth)\"; WhenPasscodeSetThisDeviceOnly; access control userPresence; key device",
        "",
      ])
    #expect(!wipe.stdout.contains("hunter2") && !wipe.stdout.contains("unix-password"))
    #expect(try keychain.items(for: alice).isEmpty)
    let again = try cli.run(["reset", "alice", "--keychain"])
    #expect(again.stdout == "Reset counters, lockout and delays for alice.\nDeleted no keychain item of alice: there was none.\n")
  }
}
