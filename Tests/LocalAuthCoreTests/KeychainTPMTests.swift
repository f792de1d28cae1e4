import Foundation
import LocalAuthTestSupport
import Testing

@testable import LocalAuthCore

/// The keychain's device key sealed by a TPM (swtpm here): only that TPM opens the items, across its restarts.
@Suite("Keychain device keys sealed by the TPM (swtpm)", .serialized)
struct KeychainTPMTests {
  let alice = try! UserName("alice")
  let hasher = PasscodeHasher(cost: 1)

  func add(_ keychain: Keychain, _ secret: String) throws {
    try keychain.add(Keychain.NewItem(service: "tpm", account: "a", data: Array(secret.utf8)), for: alice, record: nil, hasher: hasher)
  }

  func read(_ keychain: Keychain) throws(KeychainError) -> String {
    guard let item = try keychain.items(for: alice).first else { throw .itemNotFound }
    let data = try keychain.open(item, for: alice, authorization: KeychainAuthorization(), lock: .unlocked, hasher: hasher)
    return String(decoding: data, as: UTF8.self)
  }

  @Test("sealed by the TPM: status says so, the key is not on disk, and a restart of the same TPM still opens the item")
  func sealedAndRestarted() throws {
    let state = TemporaryFolder("keychain-tpm")
    let tpm = try SoftwareTPM()
    let keychain = Keychain(root: state.path, tcti: tpm.tcti)
    try add(keychain, "sealed secret")
    #expect(try keychain.protection(for: alice) == .tpm(tcti: tpm.tcti))
    let file = try String(contentsOfFile: state.path + "/keychain/alice/device.key", encoding: .utf8)
    #expect(file.contains("protection tpm") && file.contains("\nblob ") && !file.contains("\nkey "))
    #expect(try read(keychain) == "sealed secret")

    tpm.stop()
    #expect(throws: KeychainError.self) { try read(keychain) }
    do { _ = try read(keychain) } catch { #expect(error.status == -25291, "a TPM that does not answer: errSecNotAvailable") }
    try tpm.start()
    #expect(try read(Keychain(root: state.path, tcti: tpm.tcti)) == "sealed secret", "the same TPM after a restart")
  }

  @Test("another TPM cannot unseal the device key: the item does not open (errSecAuthFailed)")
  func otherTPM() throws {
    let state = TemporaryFolder("keychain-tpm")
    let tpm = try SoftwareTPM()
    try add(Keychain(root: state.path, tcti: tpm.tcti), "only here")
    let other = try SoftwareTPM()
    #expect(throws: KeychainError.authenticationFailed) { try read(Keychain(root: state.path, tcti: other.tcti)) }
  }

  @Test("no TPM (the device node is missing): a root-only key file, and status says so")
  func keyFileWithoutTPM() throws {
    let state = TemporaryFolder("keychain-tpm")
    let keychain = Keychain(root: state.path, tcti: "device:/nonexistent/tpmrm0")
    try add(keychain, "file secret")
    #expect(try keychain.protection(for: alice) == .keyFile)
    #expect(try read(keychain) == "file secret")
    let mode = try FileManager.default.attributesOfItem(atPath: state.path + "/keychain/alice/device.key")[.posixPermissions] as? Int
    #expect(mode == 0o600)
  }
}
