@testable import LocalAuthCore
import Testing

/// The passcode hash (yescrypt via libxcrypt), the constant-time comparison and the delay table.
@Suite("Passcode: hash, comparison, delays")
struct PasscodeHashTests {
  let hasher = PasscodeHasher(cost: 1)

  @Test("Passcode: the hash is yescrypt ($y$) and verifies the right passcode only")
  func yescryptHashVerifies() throws {
    let hash = try hasher.hash(SecretBytes("1234"))
    #expect(hash.hasPrefix("$y$"))
    #expect(!hash.contains("1234"))
    #expect(try hasher.verify(SecretBytes("1234"), against: hash))
    #expect(try !hasher.verify(SecretBytes("1235"), against: hash))
    #expect(try !hasher.verify(SecretBytes(""), against: hash))
  }

  @Test("Passcode: each hash has a fresh salt, and rehash reproduces a stored hash")
  func freshSalt() throws {
    let a = try hasher.hash(SecretBytes("1234"))
    let b = try hasher.hash(SecretBytes("1234"))
    #expect(a != b)
    #expect(try hasher.rehash(SecretBytes("1234"), like: a) == a)
    #expect(try hasher.verify(SecretBytes("1234"), against: b))
  }

  @Test("Passcode: the default cost is Debian's 5 and verifies hashes of other costs")
  func defaultCost() throws {
    #expect(PasscodeHasher().cost == 5)
    let cheap = try hasher.hash(SecretBytes("abcd"))
    #expect(try PasscodeHasher().verify(SecretBytes("abcd"), against: cheap))
  }

  @Test("Passcode: 512 bytes or more is refused before hashing (libxcrypt's limit counts the NUL)")
  func tooLongRefusedFirst() throws {
    for length in [512, 513, 4096] {
      let long = SecretBytes(String(repeating: "x", count: length))
      #expect(throws: PasscodeError.tooLong) { try hasher.hash(long) }
      // Refused before libxcrypt runs: an unusable setting would otherwise give hashingFailed.
      #expect(throws: PasscodeError.tooLong) { try hasher.rehash(long, like: "not-a-setting") }
    }
    #expect(SecretBytes.maximumLength == 511)
    let limit = String(repeating: "x", count: 511)
    let hash = try hasher.hash(SecretBytes(limit))
    #expect(hash.hasPrefix("$y$"))
    #expect(try hasher.verify(SecretBytes(limit), against: hash))
  }

  @Test("Passcode: a NUL byte is refused before hashing")
  func nulRefused() throws {
    let withNUL = SecretBytes([0x31, 0x00, 0x32])
    #expect(throws: PasscodeError.containsNUL) { try hasher.hash(withNUL) }
    #expect(throws: PasscodeError.containsNUL) { try hasher.rehash(withNUL, like: "not-a-setting") }
  }

  @Test("Passcode: a malformed stored hash fails to verify with hashingFailed, never true")
  func malformedStored() throws {
    #expect(throws: PasscodeError.self) { try hasher.verify(SecretBytes("1234"), against: "garbage") }
  }

  @Test("Passcode: secrets are wiped and never printed")
  func secretBytes() {
    let secret = SecretBytes("hunter2")
    #expect("\(secret)" == "<secret>")
    secret.wipe()
    #expect(secret.isEmpty && secret.count == 0)
  }

  @Test("Passcode: constantTimeEquals compares contents and lengths")
  func constantTime() {
    #expect(constantTimeEquals([], []))
    #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
    #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
    #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
    #expect(!constantTimeEquals([0x80], [0x00]))
  }

  @Test("Rule 5: DelaySchedule.apple is Apple's table (1–4 none, 5: 1 min, 6: 5 min, 7–8: 15 min, 9+: 1 h)")
  func appleTable() {
    let table = DelaySchedule.apple
    let expected: [(Int, Double)] = [
      (0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 60), (6, 300), (7, 900), (8, 900), (9, 3600), (10, 3600), (50, 3600),
    ]
    for (failures, delay) in expected { #expect(table.delay(afterFailures: failures) == delay, "after \(failures)") }
    #expect(EvaluationSettings().delaySchedule == .apple)
  }

  @Test("Rule 5: a custom schedule repeats its last entry; an empty one never delays")
  func customSchedule() {
    let custom = DelaySchedule(delays: [0, 2, 5])
    #expect(custom.delay(afterFailures: 2) == 2)
    #expect(custom.delay(afterFailures: 9) == 5)
    #expect(DelaySchedule(delays: []).delay(afterFailures: 9) == 0)
    #expect(custom.delay(afterFailures: -1) == 0)
  }

  @Test("Rule 5: durations are described the way the prompts say them")
  func durations() {
    #expect(describeDuration(60) == "1 minute")
    #expect(describeDuration(59.2) == "1 minute")
    #expect(describeDuration(300) == "5 minutes")
    #expect(describeDuration(3600) == "1 hour")
    #expect(describeDuration(1) == "1 second")
    #expect(describeDuration(42) == "42 seconds")
  }
}
