import ArgumentParser
import LocalAuthCore

extension Modality: ExpressibleByArgument {
  /// Parses `touchid` or `faceid`.
  public init?(argument: String) { self.init(name: argument) }

  public static var allValueStrings: [String] { ["touchid", "faceid"] }
  public var defaultValueDescription: String { self == .touchID ? "touchid" : "faceid" }
}

extension AuthPolicy: ExpressibleByArgument {
  /// Parses a policy name or its short form (`biometrics`, `deviceOwner`).
  public init?(argument: String) { self.init(name: argument) }

  public static var allValueStrings: [String] {
    ["deviceOwnerAuthentication", "deviceOwnerAuthenticationWithBiometrics", "deviceOwner", "biometrics"]
  }
  public var defaultValueDescription: String { name }
}
