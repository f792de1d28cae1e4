import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
  /// Turns protection of named features on or off (the module's `feature=` facade mode).
  struct Feature: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Enable, disable or list the features a user protects.",
      discussion: """
        A PAM line with feature=NAME asks only the users who enabled NAME; the others get PAM_IGNORE.
        """,
      subcommands: [Enable.self, Disable.self, List.self])

    /// Protects a feature for a user.
    struct Enable: ParsableCommand {
      static let configuration = CommandConfiguration(abstract: "Protect a feature for a user.")
      @OptionGroup var common: CommonOptions
      @Argument(help: "The user.") var user: String
      @Argument(help: "The feature name, such as sudo.") var feature: String

      func validate() throws { try validateFeature(user: user, feature: feature) }

      func run() throws {
        try reporting {
          try common.context().admin.setFeature(feature, enabled: true, for: try userName(user))
          print("Enabled \(feature) for \(user).")
        }
      }
    }

    /// Stops protecting a feature for a user.
    struct Disable: ParsableCommand {
      static let configuration = CommandConfiguration(abstract: "Stop protecting a feature for a user.")
      @OptionGroup var common: CommonOptions
      @Argument(help: "The user.") var user: String
      @Argument(help: "The feature name.") var feature: String

      func validate() throws { try validateFeature(user: user, feature: feature) }

      func run() throws {
        try reporting {
          try common.context().admin.setFeature(feature, enabled: false, for: try userName(user))
          print("Disabled \(feature) for \(user).")
        }
      }
    }

    /// Lists the features a user protects, one per line.
    struct List: ParsableCommand {
      static let configuration = CommandConfiguration(abstract: "List the features a user protects, one per line.")
      @OptionGroup var common: CommonOptions
      @Argument(help: "The user.") var user: String

      func validate() throws { _ = try userName(user) }

      func run() throws {
        try reporting {
          let record = try common.context().admin.record(for: try userName(user))
          for feature in record.features.sorted() { print(feature) }
        }
      }
    }
  }
}

/// Checks a user and a feature name before anything is read.
private func validateFeature(user: String, feature: String) throws {
  _ = try userName(user)
  guard isValidItemName(feature) else { throw ValidationError(AdministrationError.invalidName(feature).description) }
}
