/// The kind of biometric sensor, with the device behaviour Apple documents for it.
public enum Modality: String, Sendable, CaseIterable {
  /// A fingerprint sensor (LABiometryType.touchID).
  case touchID
  /// A face sensor (LABiometryType.faceID).
  case faceID

  /// The LABiometryType raw value.
  package var biometryTypeRawValue: Int {
    switch self {
    case .touchID: 1
    case .faceID: 2
    }
  }

  /// How many items may be enrolled: 5 fingers, or 2 appearances.
  package var maximumEnrolled: Int {
    switch self {
    case .touchID: 5
    case .faceID: 2
    }
  }

  /// Failed matches that end one prompt: Touch ID 3, Face ID 2 (docs/RULES.md, rule 3).
  package var failuresPerPrompt: Int {
    switch self {
    case .touchID: 3
    case .faceID: 2
    }
  }

  /// Failed matches after which the fallback button appears: Touch ID 1, Face ID 2.
  package var failuresBeforeFallback: Int {
    switch self {
    case .touchID: 1
    case .faceID: 2
    }
  }

  /// Apple's published false-match rate for one enrolled item (docs/RULES.md, "Simulated biometrics").
  package var publishedFalseMatchRate: Double {
    switch self {
    case .touchID: 1.0 / 50_000
    case .faceID: 1.0 / 1_000_000
    }
  }

  /// The word for one enrolled item.
  package var itemNoun: String {
    switch self {
    case .touchID: "finger"
    case .faceID: "appearance"
    }
  }

  /// What the sensor reads, as a prompt names it ("bob asks for alice's finger").
  package var bodyPart: String {
    switch self {
    case .touchID: "finger"
    case .faceID: "face"
    }
  }

  /// The instruction shown while the sensor waits.
  package var presentInstruction: String {
    switch self {
    case .touchID: "Place your finger on the sensor"
    case .faceID: "Look at the camera"
    }
  }

  /// Parses `touchid`, `faceid` (any case) or the raw names.
  public init?(name: String) {
    // ASCII case folding gives what lowercased() gives for these names (no other character lowercases to one of
    // their letters) and keeps the standard library's Unicode case tables out of the Embedded module.
    let folded = name.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    switch String(decoding: folded, as: UTF8.self) {
    case "touchid", "touch": self = .touchID
    case "faceid", "face": self = .faceID
    default: return nil
    }
  }
}
