import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
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
        if let reader = context.dependencies.sensor as? FprintdSensor {
          // fprintd keeps the prints: they are listed from it, not from the state.
          print(ReaderLine(user: name, sensor: reader).text)
          return
        }
        let record = try context.admin.record(for: name)
        if record.templates.isEmpty {
          print("Nothing is enrolled for \(user).")
          return
        }
        let width = record.templates.map(\.name.count).max() ?? 0
        for t in record.templates {
          let padded = t.name + String(repeating: " ", count: width - t.name.count)
          let kind = t.modality.rawValue + String(repeating: " ", count: 7 - t.modality.rawValue.count)
          print("\(padded)  \(kind)  enrolled \(formatTime(t.enrolledAt))")
        }
      }
    }
  }
}
