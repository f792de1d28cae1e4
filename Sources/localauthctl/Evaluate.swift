import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
  /// Runs a real evaluation at the terminal through the module's engine.
  struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Authenticate a user at this terminal, as the module would.",
      discussion: """
        The simulated sensor waits for `localauthctl touch` from another shell; the passcode is read from \
        the terminal with echo off, or line by line from standard input when it is not a terminal. Exit \
        status 0 on success; otherwise the LAError name and code, such as "authenticationFailed (-1)", on \
        standard error and exit status 1.
        """)

    @OptionGroup var common: CommonOptions
    @Argument(help: "The user to authenticate.") var user: String
    @Option(help: "The policy (default: policy= from the configuration, else deviceOwnerAuthentication).")
    var policy: AuthPolicy?
    @Option(help: "Why authentication is requested (default: reason= from the configuration).") var reason: String?
    @Option(help: "The fallback button's title; empty hides it.") var fallbackTitle: String?
    @Option(help: ArgumentHelp("Seconds the sensor waits for each attempt (1-600).", valueName: "seconds"))
    var timeout: Double?
    @Option(help: ArgumentHelp(
        "Seconds a recent biometric match may be reused (0-\(Int(EvaluationRequest.maximumReuseDuration))).", valueName: "seconds"))
    var reuseDuration: Double?
    @Flag(help: "Print the engine's log lines on standard error.") var verbose = false

    func validate() throws {
      _ = try userName(user)
      if reason == "" { throw ValidationError("--reason must not be empty.") }
      if let timeout, !(1...600).contains(timeout) { throw ValidationError("--timeout must be from 1 to 600 seconds.") }
      if let reuseDuration, !(0...EvaluationRequest.maximumReuseDuration).contains(reuseDuration) {
        throw ValidationError("--reuse-duration must be from 0 to \(Int(EvaluationRequest.maximumReuseDuration)) seconds.")
      }
    }

    func run() throws {
      let outcome: EvaluationOutcome = try reporting {
        let name = try userName(user)
        let context = try common.context(log: verbose ? StandardErrorLog() : NullLog())
        let options = context.options
        var settings = options.evaluation
        if let timeout { settings.sensorTimeout = timeout }
        guard let why = reason ?? options.reason else {
          throw ValidationError("Give --reason, or set reason= in the configuration.")
        }
        let request = EvaluationRequest(
          user: name, policy: policy ?? options.policy, reason: why,
          fallbackTitle: fallbackTitle ?? options.fallbackTitle, reuseDuration: reuseDuration ?? options.reuseDuration,
          origin: .current(service: "localauthctl", tty: RequestOrigin.standardInputTerminal()))
        return try PolicyEvaluator(dependencies: context.dependencies, settings: settings).evaluate(request)
      }
      switch outcome {
      case .success(let method):
        print("Authenticated \(user) by \(method.rawValue).")
      case .failure(let code, let detail):
        printError("\(code.name) (\(code.rawValue)): \(code.message)\(Self.explain(detail))")
        throw ExitCode.failure
      }
    }

    /// The failure's detail as a trailing sentence, or nothing.
    static func explain(_ detail: FailureDetail) -> String {
      switch detail {
      case .none: ""
      case .passcodeDelayed(let until): " Passcode entry is delayed until \(formatTime(until))."
      case .biometryLockedOut(let failures): " Biometry is locked after \(failures) failed matches."
      case .passcodeRequired(let why): " \(why.message)"
      case .remoteSession: " Biometry is not used in remote sessions."
      case .fallbackChosen: " The fallback button was pressed."
      case .requestNotVisible: " Biometry is not offered to a request without a terminal or from a background job."
      case .concurrentRequest: " Another request asks for the same finger or face: biometry is not offered to either."
      }
    }
  }
}
