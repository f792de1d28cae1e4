import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
  /// Presents a finger (or presses a prompt button) on the simulated sensor.
  struct Touch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Present a finger to the simulated sensor for a user's prompt.")

    @OptionGroup var common: CommonOptions
    @Argument(help: "The user whose prompt receives the event.") var user: String
    @Argument(help: "The finger presented.") var finger: String?
    @Option(help: "Capture quality from 0 to 1 (default: a typical placement).") var quality: Double?
    @Option(help: "Whose finger it is (default: the user's own).") var from: String?
    @Option(help: "touchid or faceid.") var modality: String = "touchid"
    @Flag(help: "Press Cancel.") var cancel = false
    @Flag(help: "Press the fallback button.") var fallback = false

    func run() throws {
      let name = try UserName(user)
      let clock = SystemClock()
      let event: SensorEvent
      if cancel {
        event = .cancel
      } else if fallback {
        event = .fallback
      } else {
        guard let finger else { throw ValidationError("Name the finger, or use --cancel or --fallback.") }
        guard let modality = Modality(name: modality) else { throw ValidationError("Unknown modality \(modality).") }
        let simulator = BiometricSimulator(worldSeed: try WorldSeed.load(stateRoot: common.stateDir))
        var rng = SystemRandomNumberGenerator()
        let identity = simulator.identity(owner: from ?? user, item: finger, modality: modality)
        let q = quality ?? BiometricSimulator.typicalQuality(using: &rng)
        event = .sample(simulator.capture(identity, modality: modality, quality: q, using: &rng))
      }
      var rng = SystemRandomNumberGenerator()
      try SensorQueue(stateRoot: common.stateDir).enqueue(event, for: name, at: clock.now(), sequence: rng.next())
      print("Queued for \(user).")
    }
  }
}
