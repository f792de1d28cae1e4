import Foundation

/// The biometric part of a domain state (Apple's `LADomainStateBiometry`, iOS 18 / macOS 15).
public final class LADomainStateBiometry: Sendable {
  /// The sensor's kind (the hardware, whatever the enrollment).
  public let biometryType: LABiometryType
  /// An opaque value that changes on every enrollment change; nil when nothing is enrolled.
  public let stateHash: Data?

  init(biometryType: LABiometryType, stateHash: Data?) {
    self.biometryType = biometryType
    self.stateHash = stateHash
  }
}

/// The state of the authentication domain (Apple's `LADomainState`); companions do not exist on Linux.
public final class LADomainState: Sendable {
  /// The biometric state.
  public let biometry: LADomainStateBiometry
  /// The combined state hash; with no companion it equals `biometry.stateHash`.
  public let stateHash: Data?

  init(biometry: LADomainStateBiometry) {
    self.biometry = biometry
    self.stateHash = biometry.stateHash
  }
}

/// The opaque bytes of a core domain state (a hex token); nil when nothing is enrolled.
func domainStateData(_ token: String?) -> Data? {
  guard let token else { return nil }
  let digits = Array(token.utf8)
  guard digits.count % 2 == 0, !digits.isEmpty else { return Data(token.utf8) }
  var bytes = [UInt8]()
  bytes.reserveCapacity(digits.count / 2)
  var index = 0
  while index < digits.count {
    guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return Data(token.utf8) }
    bytes.append(high << 4 | low)
    index += 2
  }
  return Data(bytes)
}

private func hexValue(_ digit: UInt8) -> UInt8? {
  switch digit {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
  case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
  case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
  default: nil
  }
}
