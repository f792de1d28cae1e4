import ArgumentParser
import LocalAuthCore

extension Modality: ExpressibleByArgument {
  /// Parses `touchid` or `faceid`.
  public init?(argument: String) { self.init(name: argument) }

  public static var allValueStrings: [String] { ["touchid", "faceid"] }
  public static var allValueDescriptions: [String: String] {
    ["touchid": "A fingerprint sensor: up to 5 fingers.", "faceid": "A face sensor: up to 2 appearances."]
  }
  public var defaultValueDescription: String { self == .touchID ? "touchid" : "faceid" }
}

extension AuthPolicy: ExpressibleByArgument {
  /// Parses a policy name or its short form (`biometrics`, `deviceOwner`).
  public init?(argument: String) { self.init(name: argument) }

  public static var allValueStrings: [String] { ["deviceOwnerAuthentication", "deviceOwnerAuthenticationWithBiometrics"] }
  public static var allValueDescriptions: [String: String] {
    [
      "deviceOwnerAuthentication": "Biometrics first, then the passcode (short form: deviceOwner).",
      "deviceOwnerAuthenticationWithBiometrics": "Biometrics only (short form: biometrics).",
    ]
  }
  public var defaultValueDescription: String { name }
}
