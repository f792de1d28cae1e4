import Foundation
import LocalAuthentication
import Security
import Testing

@Suite("SecKeyAlgorithm")
struct SecKeyAlgorithmTests {
  @Test("Security's SecKeyAlgorithm is LocalAuthentication's, with Apple's identifiers, in a file importing both")
  func sameType() {
    let fromSecurity: Security.SecKeyAlgorithm = kSecKeyAlgorithmECDSASignatureMessageX962SHA256
    let named: SecKeyAlgorithm = .ecdsaSignatureMessageX962SHA256
    #expect(fromSecurity == named)
    #expect(SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256.rawValue == "algid:sign:ECDSA:message-X962:SHA256")
    #expect(kSecKeyAlgorithmECDSASignatureDigestX962SHA256.rawValue == "algid:sign:ECDSA:digest-X962:SHA256")
    #expect(kSecKeyAlgorithmECDHKeyExchangeStandard.rawValue == "algid:keyexchange:ECDH")
    #expect(SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH") == .ecdhKeyExchangeStandard)
  }
}
