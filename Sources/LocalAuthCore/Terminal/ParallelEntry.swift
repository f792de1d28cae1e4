/// What a parallel prompt saw first: a finished passcode line, the sensor's descriptor waking, Cancel, or time.
public enum ParallelInput {
  /// Enter was pressed; the bytes typed before it (wiped by the receiver).
  case secret(SecretBytes)
  /// The descriptor waited on became readable: the sensor has something to say.
  case sensorReady
  /// Ctrl-C (or Ctrl-D on an empty line) was typed: the Cancel button.
  case cancelled
  /// The deadline passed with no line and no sensor wake.
  case timedOut
}

/// One prompt that takes a finger or a typed passcode, whichever comes first (`parallel_passcode`).
///
/// The entry owns its input while open (a terminal in byte-at-a-time mode, echo off); the half-typed line lives
/// only inside it and is wiped by `close()`, which also gives the input back as it was.
public protocol ParallelEntry: AnyObject {
  /// Waits until a line is finished, `descriptor` (when not negative) is readable, or `deadline` (on
  /// `AuthClock.uptime()`) passes; typed bytes are kept between calls.
  func next(waitingOn descriptor: Int32, until deadline: Double) throws(LocalAuthError) -> ParallelInput
  /// Shows `prompt` instead of the current one, keeping what was typed (the passcode step after the finger's).
  func reprompt(_ prompt: String) throws(LocalAuthError)
  /// Discards what was typed and restores the input; safe to call twice.
  func close()
}

extension AuthPrompter {
  /// By default a prompter cannot be read while the sensor waits: the steps run one after another.
  public func openParallelEntry(_ prompt: String) throws(LocalAuthError) -> ParallelEntry? { nil }
}
