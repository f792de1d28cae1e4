/// What a screen locker answered to the passcode prompt the evaluator asks before the finger (docs/RULES.md,
/// "Screen lockers: the typed passcode or the finger").
///
/// A locker named in `locker_programs=` (`ScreenLocker`) calls PAM only when Return is pressed and answers the
/// echo-off prompt at once with what was typed before it. So the prompt is asked once, before the finger: a
/// non-empty answer is the passcode, checked at once by the passcode rules (counted, delayed, a wrong one fails);
/// an empty one means the user pressed Return to use the finger, which is then asked as for any other request
/// (the passcode after three misses).
enum LockerAnswer {
  /// The user typed this before Return: the passcode step checks it.
  case passcode(SecretBytes)
  /// The user pressed Return on an empty field: the finger is asked.
  case finger

  /// The prompt's line, which a locker does not show but a log of the conversation does.
  static func prompt(_ modality: Modality, passcode: PasscodeSource) -> String {
    "Enter your \(passcode == .account ? "password" : "passcode"), or press Enter to use your \(modality.bodyPart): "
  }

  /// Asks `locker`'s conversation once for what was typed, and logs which way the user chose (never what).
  static func ask(
    _ request: EvaluationRequest, locker: String, _ modality: Modality, passcode: PasscodeSource,
    _ dependencies: Dependencies
  ) throws(LocalAuthError) -> LockerAnswer {
    let typed = try dependencies.prompter.secret(prompt(modality, passcode: passcode))
    let secret = passcode == .account ? "password" : "passcode"
    if typed.isEmpty {
      typed.wipe()
      dependencies.log.log(
        .info, "Screen locker \(locker) of user \(request.user) answered with an empty \(secret): the \(modality.bodyPart) is asked.")
      return .finger
    }
    dependencies.log.log(
      .info, "Screen locker \(locker) of user \(request.user) answered with a typed \(secret): it is checked before the \(modality.bodyPart).")
    return .passcode(typed)
  }
}
