import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
  /// Clears a user's counters, lockout, delays, reuse window and queued sensor events (faillock --reset).
  struct Reset: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Clear a user's failure counters, biometric lockout, passcode delay, reuse window and queued touches.",
      discussion: "Enrolment, the passcode, the domain state and the features are kept.")

    @OptionGroup var common: CommonOptions
    @Argument(help: "The user.") var user: String

    func validate() throws { _ = try userName(user) }

    func run() throws {
      try reporting {
        let name = try userName(user)
        let context = try common.context()
        try context.admin.reset(name)
        let discarded = try context.sensorAdmin.discardPending(for: name)
        let events = discarded == 0 ? "" : "; discarded \(discarded) queued sensor event\(discarded == 1 ? "" : "s")"
        print("Reset counters, lockout and delays for \(user)\(events).")
      }
    }
  }
}
