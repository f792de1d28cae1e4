import ArgumentParser
import LocalAuthCore

/// Root's tool for pam_localauth's state: enrolment, passcodes, status, reset and the simulated sensor.
@main
struct LocalAuthCtl: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "localauthctl",
    abstract: "Administer pam_localauth: enrolment, passcodes, status, reset and the simulated sensor.",
    subcommands: [Enroll.self, Passcode.self, Touch.self])
}

/// Options every subcommand shares.
struct CommonOptions: ParsableArguments {
  @Option(name: .long, help: "The state folder.")
  var stateDir: String = FileStateStore.defaultRoot

  var store: FileStateStore { FileStateStore(root: stateDir) }
}
