/// Holds a copy of the passcode an evaluation accepted, for the keychain; wiped when released or dropped.
public final class PasscodeCapture: @unchecked Sendable {
  /// The accepted passcode; nil until one is accepted.
  package private(set) var secret: SecretBytes?

  /// An empty capture.
  public init() {}

  /// Keeps a copy of `passcode`, replacing (and wiping) an earlier one.
  func keep(_ passcode: SecretBytes) {
    secret?.wipe()
    secret = SecretBytes(passcode.bytes)
  }

  /// Wipes the kept passcode.
  package func wipe() {
    secret?.wipe()
    secret = nil
  }

  deinit { wipe() }
}
