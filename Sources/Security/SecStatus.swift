import LocalAuthCore

// Apple's status codes (SecBase.h), with their values.

/// No error.
public let errSecSuccess: OSStatus = 0
/// No error (the classic Mac OS name the seeds use).
public let noErr: OSStatus = 0
/// The function is not implemented.
public let errSecUnimplemented: OSStatus = -4
/// An input/output error (the state folder).
public let errSecIO: OSStatus = -36
/// A parameter was not valid.
public let errSecParam: OSStatus = -50
/// Memory could not be allocated (here: the user's keychain quota is reached).
public let errSecAllocate: OSStatus = -108
/// The user cancelled.
public let errSecUserCanceled: OSStatus = -128
/// The service or what the item needs is not available.
public let errSecNotAvailable: OSStatus = -25291
/// Authentication failed.
public let errSecAuthFailed: OSStatus = -25293
/// The item already exists.
public let errSecDuplicateItem: OSStatus = -25299
/// No item matched.
public let errSecItemNotFound: OSStatus = -25300
/// User interaction is not allowed.
public let errSecInteractionNotAllowed: OSStatus = -25308
/// The caller is not entitled to the access group it named.
public let errSecMissingEntitlement: OSStatus = -34018

/// A sentence for a status code (Apple's SecCopyErrorMessageString, as a Swift string).
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
  switch status {
  case errSecSuccess: "No error."
  case errSecUnimplemented: "Function or operation not implemented."
  case errSecIO: "I/O error."
  case errSecParam: "One or more parameters passed to a function were not valid."
  case errSecAllocate: "Failed to allocate memory."
  case errSecMissingEntitlement: "A required entitlement isn't present."
  case errSecUserCanceled: "User canceled the operation."
  case errSecNotAvailable: "No keychain is available."
  case errSecAuthFailed: "The user name or passphrase you entered is not correct."
  case errSecDuplicateItem: "The specified item already exists in the keychain."
  case errSecItemNotFound: "The specified item could not be found in the keychain."
  case errSecInteractionNotAllowed: "User interaction is not allowed."
  default: nil
  }
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
