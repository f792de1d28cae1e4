import LocalAuthCore

/// Linux-only additions: Apple has no way to point a context at another environment.
extension LAContext {
  /// The configuration a plain `LAContext()` uses in the current task; nil means the system
  /// (`LAContextConfiguration.system()`). Lets unchanged Apple-style code run against a test environment:
  /// `LAContext.$defaultConfiguration.withValue(testConfiguration) { … LAContext() … }`.
  @TaskLocal public static var defaultConfiguration: LAContextConfiguration?

  /// Creates a context that evaluates in `configuration` (user, state, sensor, prompts, rules).
  public convenience init(configuration: LAContextConfiguration) {
    self.init(setup: .success(configuration))
  }

  /// Ends the user's reuse window now. Call it at logout, so that Face ID does not log the user straight back in
  /// (rule 7 in docs/RULES.md).
  public func endReuseWindow() throws {
    if evaluatesThroughHelper {
      let answer = try helperCall(AppCall(.endReuseWindow))
      guard case .done = answer.reply else { throw helperError(answer.reply, recorder: nil) }
      return
    }
    let configuration = try setup.get()
    let evaluator = PolicyEvaluator(dependencies: configuration.dependencies, settings: configuration.settings)
    try evaluator.endReuseWindow(for: try UserName(configuration.user))
  }
}

/// Linux-only: the prompter a system context talks to the user with (the controlling terminal, echo off for
/// the passcode); the core's one terminal prompter.
public typealias TerminalPrompter = LocalAuthCore.TerminalPrompter
