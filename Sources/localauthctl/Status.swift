import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
  /// Shows everything the module knows about a user, and what the rules require now.
  struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Show a user's enrolment, counters, lockout, delays and whether the passcode is required now.",
      discussion: """
        A corrupt or insecure state file is reported with the reason and exit status 1 (with --json, also \
        as {"user": ..., "error": ...} on standard output).
        """)

    @OptionGroup var common: CommonOptions
    @Argument(help: "The user.") var user: String
    @Flag(help: "Print JSON (times in seconds since the epoch, null when never).") var json = false

    func validate() throws { _ = try userName(user) }

    func run() throws {
      try reporting {
        let name = try userName(user)
        let context = try common.context()
        let report: StatusReport
        do {
          report = try StatusReport.load(name, dependencies: context.dependencies, settings: context.options.evaluation)
        } catch let error as StateError {
          if json {
            print(JSONValue.object([("user", .string(user)), ("error", .string(error.description))]).rendered())
          }
          throw error
        }
        let pending = (try? context.sensorAdmin.pendingCount(for: name)) ?? 0
        if json {
          print(StatusFormat.json(report, pendingEvents: pending).rendered())
        } else {
          print(StatusFormat.text(report, pendingEvents: pending))
        }
      }
    }
  }
}
