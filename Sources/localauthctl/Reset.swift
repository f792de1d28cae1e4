import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
  /// Clears a user's counters, lockout, delays and reuse window (faillock --reset).
  struct Reset: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Clear a user's failure counters, biometric lockout, passcode delay and reuse window.",
      discussion: "Enrolment, the passcode, the domain state and the features are kept.")

    @OptionGroup var common: CommonOptions
    @Argument(help: "The user.") var user: String

    func validate() throws { _ = try userName(user) }

    func run() throws {
      try reporting {
        let name = try userName(user)
        let context = try common.context()
        try context.admin.reset(name)
        print("Reset counters, lockout and delays for \(user).")
      }
    }
  }
}
