import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
  /// Enrolls a finger (or a face appearance) for a user on the simulated sensor.
  struct Enroll: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Enroll a finger or appearance for a user.",
      discussion: "The domain state changes, so the next authentication asks for the passcode first.")

    @OptionGroup var common: CommonOptions
    @Argument(help: "The user.") var user: String
    @Argument(help: "The finger or appearance name, such as right-index.") var finger: String
    @Option(help: "The sensor kind: touchid or faceid.") var modality: Modality = .touchID

    func validate() throws {
      _ = try userName(user)
      guard isValidItemName(finger) else { throw ValidationError(AdministrationError.invalidName(finger).description) }
    }

    func run() throws {
      try reporting {
        let name = try userName(user)
        let context = try common.context()
        try context.sensorAdmin.enroll(finger, modality: modality, for: name, through: context.admin)
        print("Enrolled \(modality.itemNoun) \(finger) for \(user).")
      }
    }
  }

  /// Removes an enrolled finger or appearance.
  struct Unenroll: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Remove an enrolled finger or appearance.",
      discussion: "The domain state changes (to none when nothing is left), and the reuse window ends.")

    @OptionGroup var common: CommonOptions
    @Argument(help: "The user.") var user: String
    @Argument(help: "The enrolled name to remove.") var finger: String

    func validate() throws { _ = try userName(user) }

    func run() throws {
      try reporting {
        let name = try userName(user)
        let context = try common.context()
        try context.admin.unenroll(finger, for: name)
        print("Removed \(finger) for \(user).")
      }
    }
  }

  /// Lists a user's enrolled fingers and appearances.
  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List a user's enrolled fingers and appearances.")

    @OptionGroup var common: CommonOptions
    @Argument(help: "The user.") var user: String

    func validate() throws { _ = try userName(user) }

    func run() throws {
      try reporting {
        let name = try userName(user)
        let context = try common.context()
        let record = try context.admin.record(for: name)
        if record.templates.isEmpty {
          print("Nothing is enrolled for \(user).")
          return
        }
        let width = record.templates.map(\.name.count).max() ?? 0
        for t in record.templates {
          let padded = t.name + String(repeating: " ", count: width - t.name.count)
          print("\(padded)  \(t.modality.rawValue)  enrolled \(formatTime(t.enrolledAt))")
        }
      }
    }
  }
}
