import Foundation
import Testing

@testable import LocalAuthCore

/// P-256 over libcrypto: known answers from the openssl command, cross-checks with it at run time, and rejection of
/// bytes that are not keys.
@Suite("P256: key pairs, ECDSA-SHA256 and ECDH against the openssl command")
struct P256Tests {
  static let hex = CryptoTests.hex

  // A fixture made once with the openssl command (OpenSSL 3.0.19):
  //   openssl ecparam -name prime256v1 -genkey -noout -out a.pem     (and b.pem)
  //   openssl dgst -sha256 -sign a.pem -out sig.der msg
  //   openssl pkeyutl -derive -inkey a.pem -peerkey b_pub.pem -out shared.bin
  // with the scalars and points read from `openssl pkey -text -noout`.
  let privateA = SecretBytes(P256Tests.hex("c81fd7cad7066121c5aca419dc32e4379dddf2e67d59b3d1fd98f4306a98c251"))
  let publicA = P256Tests.hex(
    "04cebd01ca8d3e304dba1507e682faa73e488a3d350852c4ef785b8a4489d777ac"
      + "5bee758077251ef484f280506233557cf3ed7c95755eaab9721203a8a070521f")
  let privateB = SecretBytes(P256Tests.hex("c315483068324355d064fd1b06aeeac3a3f412f673f7b761829f7ccaf7af6078"))
  let publicB = P256Tests.hex(
    "0437b48408c336e1b467ad25184f94bf7af168117d119f798716057dc599c5d568"
      + "4288b35770018a4880552ae851b67a822db986b8a8259f3be0553f4a0462c50a")
  let message = Array("pam_localauth P-256 fixture, signed by openssl dgst -sha256 -sign".utf8)
  let opensslSignature = P256Tests.hex(
    "3046022100bd5ff5224c946fd74f96a82d99118938d77e617e7f17818f342c8dce562dc055"
      + "022100c19340d21e31217850e7c4aec4b9cf01966ffc1cefdf720c51293aa172da5004")
  let opensslSharedSecret = P256Tests.hex("541ff234146d8cfc5513eece45638c5e408cb3e31b2f33b40f60a1eacb32a2ce")

  /// The group order n and the field prime p.
  let order = P256Tests.hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
  let prime = P256Tests.hex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")

  @Test("P256: the public key of openssl's private key is openssl's public key")
  func publicKeyOfFixture() throws {
    #expect(try P256.publicKey(of: privateA) == publicA)
    #expect(try P256.publicKey(of: privateB) == publicB)
  }

  @Test("P256: a signature made by openssl dgst -sha256 -sign verifies, over the message and over its digest")
  func verifiesOpenSSLSignature() throws {
    #expect(try P256.verify(signature: opensslSignature, message: message, publicKey: publicA))
    let digest = try Crypto.sha256(message)
    #expect(try P256.verify(signature: opensslSignature, digest: digest, publicKey: publicA))
    #expect(try !P256.verify(signature: opensslSignature, message: message + [0], publicKey: publicA))
    #expect(try !P256.verify(signature: opensslSignature, message: message, publicKey: publicB))
    var flipped = opensslSignature
    flipped[10] ^= 0x01
    #expect(try !P256.verify(signature: flipped, message: message, publicKey: publicA))
    #expect(try !P256.verify(signature: Array(opensslSignature.dropLast()), message: message, publicKey: publicA))
    #expect(try !P256.verify(signature: [], message: message, publicKey: publicA))
    #expect(try !P256.verify(signature: [UInt8](repeating: 0x30, count: 200), message: message, publicKey: publicA))
  }

  @Test("P256: our signatures, over a message and over its digest, verify with openssl dgst -sha256 -verify")
  func opensslVerifiesOurSignatures() throws {
    let folder = try TemporaryFolder()
    let (privateKey, publicKey) = try P256.generate()
    try folder.write("pub.der", Self.subjectPublicKeyInfo(publicKey))
    try folder.write("msg", message)
    let bySigning = try P256.sign(message: message, privateKey: privateKey)
    let byDigest = try P256.sign(digest: Crypto.sha256(message), privateKey: privateKey)
    for (name, signature) in [("message", bySigning), ("digest", byDigest)] {
      #expect(signature.count <= 72 && signature.first == 0x30, "\(name): not a DER SEQUENCE")
      #expect(try P256.verify(signature: signature, message: message, publicKey: publicKey), "\(name)")
      try folder.write("sig.der", signature)
      let result = try Self.openssl(
        ["dgst", "-sha256", "-verify", folder.path("pub.der"), "-keyform", "DER", "-signature", folder.path("sig.der"),
         folder.path("msg")])
      #expect(result.status == 0 && result.output.contains("Verified OK"), "\(name): openssl said \(result.output)")
    }
    // ECDSA signs with a fresh nonce: two signatures of one message differ, and both verify.
    #expect(try P256.sign(message: message, privateKey: privateKey) != bySigning)
  }

  @Test("P256: ECDH agrees with openssl pkeyutl -derive, on the fixture and on a key of ours")
  func sharedSecretMatchesOpenSSL() throws {
    #expect(try P256.sharedSecret(privateKey: privateA, peerPublicKey: publicB).bytes == opensslSharedSecret)
    #expect(try P256.sharedSecret(privateKey: privateB, peerPublicKey: publicA).bytes == opensslSharedSecret)

    let folder = try TemporaryFolder()
    let (privateKey, publicKey) = try P256.generate()
    try folder.write("ours.der", Self.ecPrivateKey(privateKey.bytes, publicKey))
    try folder.write("peer.der", Self.subjectPublicKeyInfo(publicB))
    let result = try Self.openssl(
      ["pkeyutl", "-derive", "-inkey", folder.path("ours.der"), "-keyform", "DER", "-peerkey", folder.path("peer.der"),
       "-peerform", "DER", "-out", folder.path("shared.bin")])
    #expect(result.status == 0, "openssl said \(result.output)")
    let theirs = try folder.read("shared.bin")
    #expect(theirs.count == 32)
    #expect(try P256.sharedSecret(privateKey: privateKey, peerPublicKey: publicB).bytes == theirs)
    #expect(try P256.sharedSecret(privateKey: privateB, peerPublicKey: publicKey).bytes == theirs)
  }

  @Test("P256: generated key pairs are fresh, uncompressed, and consistent")
  func generate() throws {
    let first = try P256.generate()
    let second = try P256.generate()
    #expect(first.privateKey.count == 32 && first.publicKey.count == 65 && first.publicKey[0] == 0x04)
    #expect(first.privateKey.bytes != second.privateKey.bytes && first.publicKey != second.publicKey)
    #expect(try P256.publicKey(of: first.privateKey) == first.publicKey)
    let signature = try P256.sign(message: [], privateKey: first.privateKey)
    #expect(try P256.verify(signature: signature, message: [], publicKey: first.publicKey))
    #expect(try !P256.verify(signature: signature, message: [], publicKey: second.publicKey))
  }

  @Test("P256: a point off the curve, a coordinate beyond p, or a wrong length is refused, not verified or used")
  func rejectsBadPublicKeys() throws {
    var offCurve = publicA
    offCurve[64] ^= 0x01
    var beyondPrime = publicA
    beyondPrime.replaceSubrange(1...32, with: prime)
    var hybrid = publicA
    hybrid[0] = 0x06
    let compressed = [0x02] + Array(publicA[1...32])
    let bad: [(String, [UInt8])] = [
      ("off the curve", offCurve), ("x = p", beyondPrime), ("prefix 06", hybrid), ("compressed", compressed),
      ("64 bytes", Array(publicA.dropFirst())), ("66 bytes", publicA + [0]), ("empty", []),
      ("zeros", [0x04] + [UInt8](repeating: 0, count: 64)),
    ]
    for (name, key) in bad {
      #expect(throws: CryptoError.self, "\(name)") {
        try P256.verify(signature: opensslSignature, message: message, publicKey: key)
      }
      #expect(throws: CryptoError.self, "\(name)") { try P256.sharedSecret(privateKey: privateA, peerPublicKey: key) }
    }
  }

  @Test("P256: a private key of 0, of n or beyond, or of a wrong length is refused")
  func rejectsBadPrivateKeys() throws {
    var beyond = order
    beyond[31] &+= 1
    let bad: [(String, [UInt8])] = [
      ("zero", [UInt8](repeating: 0, count: 32)), ("n", order), ("n + 1", beyond),
      ("all ones", [UInt8](repeating: 0xff, count: 32)), ("31 bytes", Array(privateA.bytes.dropFirst())),
      ("33 bytes", [0] + privateA.bytes), ("empty", []),
    ]
    for (name, bytes) in bad {
      let key = SecretBytes(bytes)
      #expect(throws: CryptoError.self, "\(name)") { try P256.publicKey(of: key) }
      #expect(throws: CryptoError.self, "\(name)") { try P256.sign(message: message, privateKey: key) }
      #expect(throws: CryptoError.self, "\(name)") { try P256.sharedSecret(privateKey: key, peerPublicKey: publicB) }
    }
    var nMinusOne = order
    nMinusOne[31] -= 1
    #expect(try P256.publicKey(of: SecretBytes(nMinusOne)).count == 65, "n - 1 is the largest private key")
    #expect(throws: CryptoError.self) { try P256.sign(digest: Array(repeating: 1, count: 31), privateKey: privateA) }
    #expect(throws: CryptoError.self) {
      try P256.verify(signature: opensslSignature, digest: Array(repeating: 1, count: 33), publicKey: publicA)
    }
  }

  // MARK: - The openssl command

  /// A temporary folder, removed when released.
  final class TemporaryFolder {
    let root: URL
    init() throws {
      root = FileManager.default.temporaryDirectory.appendingPathComponent("p256-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: root) }
    func path(_ name: String) -> String { root.appendingPathComponent(name).path }
    func write(_ name: String, _ bytes: [UInt8]) throws { try Data(bytes).write(to: root.appendingPathComponent(name)) }
    func read(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: root.appendingPathComponent(name))) }
  }

  /// Runs /usr/bin/openssl; its exit status and what it wrote (standard output and error).
  static func openssl(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let executable = "/usr/bin/openssl"
    try #require(FileManager.default.isExecutableFile(atPath: executable), "install Debian's openssl (make deps does)")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
  }

  /// A P-256 public key as DER SubjectPublicKeyInfo (RFC 5480): the fixed header for id-ecPublicKey/prime256v1,
  /// then the point.
  static func subjectPublicKeyInfo(_ point: [UInt8]) -> [UInt8] {
    hex("3059301306072a8648ce3d020106082a8648ce3d030107034200") + point
  }

  /// A P-256 key pair as DER ECPrivateKey (RFC 5915, SEC 1): version 1, the scalar, the curve, the point.
  static func ecPrivateKey(_ scalar: [UInt8], _ point: [UInt8]) -> [UInt8] {
    hex("30770201010420") + scalar + hex("a00a06082a8648ce3d030107a144034200") + point
  }
}
