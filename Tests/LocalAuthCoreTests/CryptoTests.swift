@testable import LocalAuthCore
import Testing

/// The keychain's primitives over libcrypto: SHA-256, HKDF-SHA256, AES-256-GCM and X25519, against published vectors.
@Suite("Crypto: SHA-256, HKDF, AES-256-GCM, X25519")
struct CryptoTests {
  /// Bytes from a hexadecimal string (test vectors only).
  static func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8).compactMap { byte -> UInt8? in
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
      default: nil
      }
    }
    return stride(from: 0, to: digits.count - 1, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
  }

  let key = CryptoTests.hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
  let aad = Array("keychain-item v1".utf8)

  @Test("Crypto: libcrypto.so.3 is available on the test machine")
  func available() throws {
    #expect(try Crypto.randomBytes(32).count == 32)
    #expect(try Crypto.randomBytes(0).isEmpty)
    #expect(try Crypto.randomBytes(32) != Crypto.randomBytes(32))
  }

  @Test("Crypto: SHA-256 of \"abc\" and of the empty string (FIPS 180-2)")
  func sha256() throws {
    #expect(
      try Crypto.sha256(Array("abc".utf8))
        == Self.hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
    #expect(try Crypto.sha256([]) == Self.hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
  }

  @Test("Crypto: HKDF-SHA256, RFC 5869 test cases 1 and 3")
  func hkdf() throws {
    let okm = try Crypto.hkdf(
      key: Self.hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), salt: Self.hex("000102030405060708090a0b0c"),
      info: Self.hex("f0f1f2f3f4f5f6f7f8f9"), count: 42)
    #expect(
      okm
        == Self.hex(
          "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
    // Test case 3: empty salt and info.
    let okm3 = try Crypto.hkdf(
      key: Self.hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), salt: [], info: [], count: 42)
    #expect(
      okm3
        == Self.hex(
          "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"))
    #expect(try Crypto.hkdf(key: key, salt: [], info: []).count == 32)
    #expect(try Crypto.hkdf(key: key, salt: [], info: [], count: 255 * 32).count == 255 * 32)
    #expect(throws: CryptoError.self) { try Crypto.hkdf(key: key, salt: [], info: [], count: 255 * 32 + 1) }
  }

  @Test("Crypto: AES-256-GCM round trip, including an empty plaintext; the box is nonce ‖ ciphertext ‖ tag")
  func roundTrip() throws {
    for plaintext in [[], Array("a secret".utf8), [UInt8](repeating: 0xA5, count: 1000)] {
      let box = try Crypto.seal(plaintext, key: key, aad: aad)
      #expect(box.count == 12 + plaintext.count + 16)
      #expect(try Crypto.open(box, key: key, aad: aad) == plaintext)
    }
    let empty = try Crypto.seal([], key: key, aad: [])
    #expect(try Crypto.open(empty, key: key, aad: []) == [])
  }

  @Test("Crypto: two seals of the same plaintext differ (a random nonce each time)")
  func randomNonce() throws {
    let plaintext = Array("same plaintext".utf8)
    let first = try Crypto.seal(plaintext, key: key, aad: aad)
    let second = try Crypto.seal(plaintext, key: key, aad: aad)
    #expect(first != second)
    #expect(Array(first.prefix(12)) != Array(second.prefix(12)))
  }

  @Test("Crypto: a flipped bit in the nonce, ciphertext, tag or aad, or another key, fails authentication")
  func tampering() throws {
    let box = try Crypto.seal(Array("transfer 100".utf8), key: key, aad: aad)
    // Nonce (0), ciphertext (12), tag (last 16 bytes): every position of a few bytes of each.
    for index in [0, 11, 12, 23, box.count - 16, box.count - 1] {
      for bit in [0, 7] {
        var changed = box
        changed[index] ^= UInt8(1) << bit
        #expect(throws: CryptoError.authenticationFailed) { try Crypto.open(changed, key: key, aad: aad) }
      }
    }
    var otherAAD = aad
    otherAAD[0] ^= 1
    #expect(throws: CryptoError.authenticationFailed) { try Crypto.open(box, key: key, aad: otherAAD) }
    #expect(throws: CryptoError.authenticationFailed) { try Crypto.open(box, key: key, aad: []) }
    var otherKey = key
    otherKey[31] ^= 1
    #expect(throws: CryptoError.authenticationFailed) { try Crypto.open(box, key: otherKey, aad: aad) }
    // An empty plaintext is authenticated too.
    var emptyBox = try Crypto.seal([], key: key, aad: aad)
    emptyBox[20] ^= 1
    #expect(throws: CryptoError.authenticationFailed) { try Crypto.open(emptyBox, key: key, aad: aad) }
  }

  @Test("Crypto: a box shorter than nonce and tag (28 bytes) fails authentication")
  func shortBox() throws {
    for length in [0, 1, 12, 27] {
      #expect(throws: CryptoError.authenticationFailed) {
        try Crypto.open([UInt8](repeating: 0, count: length), key: key, aad: aad)
      }
    }
  }

  @Test("Crypto: keys must be exactly 32 bytes")
  func keyLength() throws {
    for bad in [[], [UInt8](repeating: 1, count: 16), [UInt8](repeating: 1, count: 33)] {
      #expect(throws: CryptoError.failed("AES-256-GCM key must be 32 bytes")) {
        try Crypto.seal([1], key: bad, aad: [])
      }
      #expect(throws: CryptoError.failed("AES-256-GCM key must be 32 bytes")) {
        try Crypto.open([UInt8](repeating: 0, count: 40), key: bad, aad: [])
      }
      #expect(throws: CryptoError.self) { try Crypto.x25519(privateKey: bad, peer: key) }
      #expect(throws: CryptoError.self) { try Crypto.x25519(privateKey: key, peer: bad) }
    }
  }

  @Test("Crypto: X25519, RFC 7748 section 6.1 (Alice and Bob)")
  func x25519Vector() throws {
    let alicePrivate = Self.hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
    let alicePublic = Self.hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
    let bobPrivate = Self.hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
    let bobPublic = Self.hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
    let shared = Self.hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
    #expect(try Crypto.x25519(privateKey: alicePrivate, peer: bobPublic) == shared)
    #expect(try Crypto.x25519(privateKey: bobPrivate, peer: alicePublic) == shared)
  }

  @Test("Crypto: generated X25519 key pairs agree on one secret; a small-order peer key is refused")
  func x25519KeyPairs() throws {
    let alice = try Crypto.x25519KeyPair()
    let bob = try Crypto.x25519KeyPair()
    #expect(alice.privateKey.count == 32 && alice.publicKey.count == 32)
    #expect(alice.privateKey != bob.privateKey)
    let a = try Crypto.x25519(privateKey: alice.privateKey, peer: bob.publicKey)
    let b = try Crypto.x25519(privateKey: bob.privateKey, peer: alice.publicKey)
    #expect(a == b)
    #expect(a != [UInt8](repeating: 0, count: 32))
    // The identity point (u = 0) gives an all-zero secret, which must not be used.
    #expect(throws: CryptoError.self) {
      try Crypto.x25519(privateKey: alice.privateKey, peer: [UInt8](repeating: 0, count: 32))
    }
  }

  @Test("Crypto: wipe overwrites a buffer with zeros")
  func wipe() {
    var secret: [UInt8] = [1, 2, 3, 4]
    Crypto.wipe(&secret)
    #expect(secret == [0, 0, 0, 0])
  }
}
