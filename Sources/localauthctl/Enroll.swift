import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
  /// Enrolls a finger (or a face appearance) for a user on the simulated sensor.
  struct Enroll: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Enroll a finger or appearance for a user.")

    @OptionGroup var common: CommonOptions
    @Argument(help: "The user.") var user: String
    @Argument(help: "The finger or appearance name, such as right-index.") var finger: String
    @Option(help: "touchid or faceid.") var modality: String = "touchid"

    func run() throws {
      let name = try UserName(user)
      guard let modality = Modality(name: modality) else { throw ValidationError("Unknown modality \(modality).") }
      let clock = SystemClock()
      let simulator = BiometricSimulator(worldSeed: try WorldSeed.load(stateRoot: common.stateDir))
      var rng = SystemRandomNumberGenerator()
      let template = simulator.enroll(owner: user, item: finger, modality: modality, at: clock.now(), using: &rng)
      try Administration(store: common.store, clock: clock).enroll(template, for: name)
      print("Enrolled \(modality.itemNoun) \(finger) for \(user).")
    }
  }
}
