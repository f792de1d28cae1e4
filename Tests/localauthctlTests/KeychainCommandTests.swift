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
}
