import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
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
}
