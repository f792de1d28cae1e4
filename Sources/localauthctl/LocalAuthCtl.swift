import ArgumentParser
import LocalAuthCore

/// Root's tool for pam_localauth's state: enrolment, passcodes, status, reset and the simulated sensor.
///
/// Like faillock(8) beside pam_faillock, it links the module's own core: the same option parser, state store,
/// rules and evaluator, so what it shows and changes is exactly what the module sees.
@main
struct LocalAuthCtl: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "localauthctl",
    abstract: "Administer pam_localauth: enrolment, passcodes, status, reset and the simulated sensor.",
    discussion: """
      Every command reads state_dir and the rules from /etc/security/localauth.conf (or --conf FILE), \
      and --state-dir overrides the folder. Exit status: 0 on success, 1 on a failure (one line on \
      standard error), 64 on a usage error.
      """,
    subcommands: [
      Enroll.self, Unenroll.self, List.self, Passcode.self, Touch.self, Prompts.self, Status.self, Reset.self, Feature.self,
      Evaluate.self, CheckConfig.self, KeychainCommand.self,
    ])
}
