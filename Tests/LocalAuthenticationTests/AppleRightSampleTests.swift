import Foundation
import LocalAuthCore
import LocalAuthentication
import Testing

/// The openssl command, to check signatures against the exported X9.63 key.
enum Openssl {
  /// True when `openssl dgst -sha256 -verify` accepts `signature` over `message` under `publicKey` (04 ‖ X ‖ Y).
  static func verifies(signature: Data, message: Data, publicKey: Data) throws -> Bool {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("la-openssl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // SubjectPublicKeyInfo: id-ecPublicKey, prime256v1, then the point as a BIT STRING.
    let header = Data([
      0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce,
      0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ])
    try (header + publicKey).write(to: folder.appendingPathComponent("pub.der"))
    try signature.write(to: folder.appendingPathComponent("sig.der"))
    try message.write(to: folder.appendingPathComponent("msg"))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = [
      "dgst", "-sha256", "-verify", folder.appendingPathComponent("pub.der").path, "-keyform", "DER", "-signature",
      folder.appendingPathComponent("sig.der").path, folder.appendingPathComponent("msg").path,
    ]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return process.terminationStatus == 0 && output.contains("Verified OK")
  }
}

/// Apple's examples from the LARightStore and LAPersistedRight pages, verbatim.
enum AppleRightSamples {
  static func storeBackendAccessToken(_ token: Data) async throws {
    let loginRight = LARight()
    _ = try await LARightStore.shared.saveRight(loginRight, identifier: "access-token", secret: token)
  }

  static func fetchBackendAccessToken() async throws -> Data {
    let loginRight = try await LARightStore.shared.right(forIdentifier: "access-token")

    // Authorize the right or else the secret is unavailable.
    try await loginRight.authorize(localizedReason: "Access sandcastle competition server")
    return try await loginRight.secret.rawData
  }

  static func generateClientKeys() async throws -> Data {
    let right = LARight()
    let persistedRight = try await LARightStore.shared.saveRight(right, identifier: "server-access")
    return try await persistedRight.key.publicKey.bytes
  }

  static func signServerChallenge(nonce: Data) async throws -> Data {
    let persistedRight = try await LARightStore.shared.right(forIdentifier: "server-access")
    try await persistedRight.authorize(localizedReason: "Access the sandcastle competition server")

    guard persistedRight.key.canSign(using: .ecdsaSignatureMessageX962SHA256) else {
      throw NSError(domain: "ExampleErrorDomain", code: -1, userInfo: [:])
    }

    return try await persistedRight.key.sign(nonce, algorithm: .ecdsaSignatureMessageX962SHA256)
  }
}

@Suite("LARightStore: Apple's examples")
struct AppleRightSampleTests {
  @Test("Apple's examples run unchanged: the token comes back after a touch, the challenge's signature verifies")
  func samples() async throws {
    let world = try RightWorld.ready()
    let token = Data("sandcastle-token".utf8)
    let nonce = Data("nonce-7".utf8)
    let (fetched, publicKey, signature) = try await world.run {
      try await AppleRightSamples.storeBackendAccessToken(token)
      world.touch()
      let fetched = try await AppleRightSamples.fetchBackendAccessToken()
      let publicKey = try await AppleRightSamples.generateClientKeys()
      world.touch()
      return (fetched, publicKey, try await AppleRightSamples.signServerChallenge(nonce: nonce))
    }
    #expect(fetched == token)
    #expect(try P256.verify(signature: Array(signature), message: Array(nonce), publicKey: Array(publicKey)))
    #expect(world.prompter.transcript.contains { $0.contains("Access sandcastle competition server") })
  }
}
