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
    @Option(help: "The sensor kind.") var modality: Modality = .touchID

    func validate() throws {
      _ = try userName(user)
      guard isValidItemName(finger) else { throw ValidationError(AdministrationError.invalidName(finger).description) }
    }

    func run() throws {
      try reporting {
        let name = try userName(user)
        let context = try common.context()
        if context.options.fprintd {
          let fprintdName = finger.hasSuffix("-finger") ? finger : finger + "-finger"
          throw CommandFailure(
            "fprintd keeps the prints of a real reader: enroll with fprintd-enroll -f \(fprintdName) \(user) (or your desktop's "
              + "settings). pam_localauth sees the change and asks for the passcode once.")
        }
        try context.sensorAdmin.enroll(finger, modality: modality, for: name, through: context.admin)
        print("Enrolled \(modality.itemNoun) \(finger) for \(user).")
      }
    }
  }
}
