import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
  /// Shows everything the module knows about a user (or a summary of every user), and what the rules require now.
  struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Show a user's enrolment, counters, lockout, delays and whether the passcode is required now.",
      discussion: """
        Without USER, prints one summary line per user that has a state file (with --json, an array of \
        reports), like faillock(8) without --user. A corrupt or insecure state file is reported with the \
        reason and exit status 1 (with --json, also as {"user": ..., "error": ...} on standard output).
        """)

    @OptionGroup var common: CommonOptions
    @Argument(help: "The user (default: every user with a state file).") var user: String?
    @Flag(help: "Print JSON (times in seconds since the epoch, null when never).") var json = false

    func validate() throws { if let user { _ = try userName(user) } }

    func run() throws {
      try reporting {
        let context = try common.context()
        guard let user else { return try summarize(context) }
        let name = try userName(user)
        let report: StatusReport
        do throws(LocalAuthError) {
          report = try load(name, context)
        } catch {
          if json, case .state(let state) = error { print(Self.errorObject(user, state).rendered()) }
          throw error
        }
        let waiting = (try? context.sensorAdmin.waitingPrompts(for: name).count) ?? 0
        let reader = (context.dependencies.sensor as? FprintdSensor).map { ReaderLine(user: name, sensor: $0) }
        let keychain = context.dependencies.keychain.map { KeychainLine(user: name, keychain: $0) }
        if json {
          var object = StatusFormat.json(report, waitingPrompts: waiting)
          if let reader, case .object(let members) = object { object = .object(members + [("reader", reader.json)]) }
          if let keychain, case .object(let members) = object { object = .object(members + [("keychain", keychain.json)]) }
          print(object.rendered())
        } else {
          print(StatusFormat.text(report, waitingPrompts: waiting))
          if let reader { print(reader.text) }
          if let keychain { print(keychain.text) }
        }
        // Status reads without the lock; a holder is named so that a hung reset or prompt can be explained.
        let lockPath = context.options.stateDirectory + "/locks/" + name.value
        if !json, let holder = LockHolder.find(forLockAt: lockPath) { print("The state lock is held by \(holder).") }
      }
    }

    /// Every user's report: a table, or a JSON array; a user whose state cannot be read fails the command at the end.
    private func summarize(_ context: CommandContext) throws {
      var items: [JSONValue] = []
      var rows: [[String]] = [StatusFormat.summaryHeader]
      var failures: [String] = []
      for name in try context.dependencies.store.users().sorted(by: { $0.value < $1.value }) {
        do {
          let report = try load(name, context)
          let waiting = (try? context.sensorAdmin.waitingPrompts(for: name).count) ?? 0
          items.append(StatusFormat.json(report, waitingPrompts: waiting))
          rows.append(StatusFormat.summaryRow(report))
        } catch {
          guard case .state(let state) = error else { throw error }
          items.append(Self.errorObject(name.value, state))
          rows.append([name.value, "unreadable (see below)"])
          failures.append(state.description)
        }
      }
      if json {
        print(JSONValue.array(items).rendered())
      } else if rows.count == 1 {
        print("No user has a state file in \(context.options.stateDirectory).")
      } else {
        print(StatusFormat.table(rows))
      }
      guard failures.isEmpty else {
        for failure in failures.dropLast() { printError("Error: \(failure)") }
        throw CommandFailure(failures[failures.count - 1])
      }
    }

    private func load(_ name: UserName, _ context: CommandContext) throws(LocalAuthError) -> StatusReport {
      try StatusReport.load(name, dependencies: context.dependencies, settings: context.options.evaluation)
    }

    /// The JSON stand-in for a report that could not be made.
    static func errorObject(_ user: String, _ error: StateError) -> JSONValue {
      .object([("user", .string(user)), ("error", .string(error.description))])
    }
  }
}
