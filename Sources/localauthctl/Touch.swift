import ArgumentParser
import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

extension LocalAuthCtl {
  /// Presents a finger (or presses a prompt button) on the simulated sensor.
  struct Touch: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Present a finger to the simulated sensor, or press the prompt's Cancel or fallback button.",
      discussion: """
        The event waits in the state folder for the user's next prompt (the module, or `localauthctl \
        evaluate`) and expires after event_expiry seconds (default 30). Only root may present.
        """)

    @OptionGroup var common: CommonOptions
    @Argument(help: "The user whose prompt receives the event.") var user: String
    @Argument(help: "The finger or appearance presented.") var finger: String?
    @Option(help: "Capture quality from 0 to 1 (default: a typical placement).") var quality: Double?
    @Option(help: ArgumentHelp("Whose finger it is (default: the user's own).", valueName: "owner")) var from: String?
    @Option(help: "The sensor kind (default: the configured sensor).") var modality: Modality?
    @Flag(help: "Press Cancel.") var cancel = false
    @Flag(help: "Press the fallback button.") var fallback = false

    func validate() throws {
      _ = try userName(user)
      if cancel && fallback { throw ValidationError("Use either --cancel or --fallback, not both.") }
      if cancel || fallback {
        guard finger == nil, quality == nil, from == nil else {
          throw ValidationError("--cancel and --fallback take no finger, --quality or --from.")
        }
      } else {
        guard let finger else { throw ValidationError("Name the finger, or use --cancel or --fallback.") }
        guard isValidItemName(finger) else { throw ValidationError(AdministrationError.invalidName(finger).description) }
      }
      if let quality, !(0...1).contains(quality) { throw ValidationError("--quality must be between 0 and 1.") }
      if let from, from.isEmpty { throw ValidationError("--from needs a user name.") }
    }

    func run() throws {
      try reporting {
        guard geteuid() == 0 else {
          throw CommandFailure("Only root may present to the sensor: run touch as root (effective uid is \(geteuid())).")
        }
        let name = try userName(user)
        let context = try common.context()
        if cancel {
          try context.sensorAdmin.queue(.cancel, for: name)
          print("Queued Cancel for \(user)'s prompt.")
        } else if fallback {
          try context.sensorAdmin.queue(.fallback, for: name)
          print("Queued the fallback button for \(user)'s prompt.")
        } else if let finger {
          let kind = modality ?? context.options.sensor ?? .touchID
          try context.sensorAdmin.present(finger, modality: kind, quality: quality, from: from, for: name)
          print("Queued \(from ?? user)'s \(kind.itemNoun) \(finger) for \(user)'s prompt.")
        }
      }
    }
  }
}
