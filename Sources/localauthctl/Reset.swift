import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
  /// Clears a user's counters, lockout, delays and reuse window (faillock --reset); with `--keychain`, also
  /// deletes the user's keychain items and names each one.
  struct Reset: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Clear a user's failure counters, biometric lockout, passcode delay and reuse window.",
      discussion: """
        Enrolment, the passcode, the domain state, the features and the keychain are kept. With --keychain, \
        every keychain item of the user is deleted as well (the login secret among them), and each is named.
        """)

    @OptionGroup var common: CommonOptions
    @Argument(help: "The user.") var user: String
    @Flag(help: "Also delete every keychain item of the user, and name each one deleted.") var keychain = false

    func validate() throws { _ = try userName(user) }

    func run() throws {
      try reporting {
        let name = try userName(user)
        let context = try common.context()
        try context.admin.reset(name)
        print("Reset counters, lockout and delays for \(user).")
        guard keychain else { return }
        let deleted = try context.admin.deleteKeychainItems(of: name)
        guard !deleted.isEmpty else {
          print("Deleted no keychain item of \(user): there was none.")
          return
        }
        print("Deleted \(deleted.count) keychain item\(deleted.count == 1 ? "" : "s") of \(user):")
        for item in deleted { print("  " + KeychainLine.row(item)) }
      }
    }
  }
}
