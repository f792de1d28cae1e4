import ArgumentParser
import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

extension LocalAuthCtl {
  /// Presents a finger (or presses a prompt button) on the simulated sensor, to the prompt that waits for it.
  struct Touch: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Present a finger to the prompt waiting for a user, or press its Cancel or fallback button.",
      discussion: """
        The touch goes to the one prompt waiting for USER (see `localauthctl prompts`) and returns once that \
        prompt has read it. Without --prompt it goes only to a prompt that USER or root asked for: another \
        user's `su USER` needs --prompt ID. With no prompt waiting it is refused, as a phone ignores a touch \
        with no prompt on screen; with several waiting it is refused and lists them, and --prompt ID chooses. --wait SECONDS \
        waits for a prompt to appear (a touch whose prompt ended before reading it then goes to the next one \
        that appears, unless --prompt names the prompt). Only root may present.
        """)

    @OptionGroup var common: CommonOptions
    @Argument(help: "The user whose prompt receives the event.") var user: String
    @Argument(help: "The finger or appearance presented.") var finger: String?
    @Option(help: "Capture quality from 0 to 1 (default: a typical placement).") var quality: Double?
    @Option(help: ArgumentHelp("Whose finger it is (default: the user's own).", valueName: "owner")) var from: String?
    @Option(help: "The sensor kind (default: the prompt's).") var modality: Modality?
    @Option(help: ArgumentHelp("The prompt to present to (from `localauthctl prompts`).", valueName: "id")) var prompt: String?
    @Option(help: ArgumentHelp("Seconds to wait for a prompt to appear (default 0).", valueName: "seconds")) var wait: Double = 0
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
      if let prompt, !PromptAnnouncement.isValidID(prompt) { throw ValidationError("--prompt takes an id of 8 hexadecimal digits.") }
      guard wait.isFinite, (0...3600).contains(wait) else { throw ValidationError("--wait must be between 0 and 3600 seconds.") }
    }

    func run() throws {
      try reporting {
        guard geteuid() == 0 else {
          throw CommandFailure("Only root may present to the sensor: run touch as root (effective uid is \(geteuid())).")
        }
        let name = try userName(user)
        let context = try common.context()
        let admin = context.sensorAdmin
        let event: SensorEvent
        let what: String
        if cancel {
          (event, what) = (.cancel, "Pressed Cancel")
        } else if fallback {
          (event, what) = (.fallback, "Pressed the fallback button")
        } else {
          let finger = finger ?? ""
          // The prompt's own sensor kind when one waits; a capture of the other kind is refused by the prompt.
          let kind = modality ?? (try? admin.waitingPrompts(for: name).first?.modality) ?? context.options.sensor ?? .touchID
          event = try admin.capture(finger, modality: kind, quality: quality, from: from, for: name)
          what = "Presented \(from ?? user)'s \(kind.itemNoun) \(finger)"
        }
        let reached = try admin.present(event, for: name, prompt: prompt, wait: wait, readLimit: context.options.eventExpiry)
        print("\(what) to prompt \(reached.id) (\(reached.origin.requesterName) asks for \(user) through \(reached.origin.service)).")
      }
    }
  }
}
