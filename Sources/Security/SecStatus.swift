import LocalAuthCore

// Apple's status codes are the core's (Sources/LocalAuthCore/Keychain/SecStatusCodes*.swift, re-exported by
// SecBase.swift); their messages are SecStatusTable's.

/// No error (the classic Mac OS name the seeds use).
public let noErr: OSStatus = 0

/// Apple's message for a status code (SecCopyErrorMessageString, from the core's table); nil for a code
/// Apple does not define or gives no message.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
  guard let entry = SecStatusTable.entry(for: status), entry.message.utf8CodeUnitCount > 0 else { return nil }
  return CFString(string: entry.message.description)
}

/// The status for an error of the core: the keychain's own, or what an evaluation or the state folder threw.
func status(for error: LocalAuthError) -> OSStatus {
  switch error {
  case .keychain(let keychain): keychain.status
  case .prompt(.interrupted), .prompt(.endOfInput): errSecUserCanceled
  case .prompt: errSecInteractionNotAllowed
  case .state: errSecIO
  case .usage: errSecParam
  case .config, .administration, .touchDelivery, .helper: errSecNotAvailable
  }
}
