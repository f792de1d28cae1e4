import Foundation
import LocalAuthCore

/// The constraints of SecAccessControlCreateWithFlags, with Apple's bit values.
public struct SecAccessControlCreateFlags: OptionSet, Sendable {
  public let rawValue: UInt

  /// Wraps Apple's bit pattern.
  public init(rawValue: UInt) { self.rawValue = rawValue }

  /// Biometry or the passcode.
  public static let userPresence = SecAccessControlCreateFlags(rawValue: KeychainAccessFlags.userPresence.rawValue)
  /// Any enrolled biometry.
  public static let biometryAny = SecAccessControlCreateFlags(rawValue: KeychainAccessFlags.biometryAny.rawValue)
  /// The biometry enrolled now; invalidated by any enrolment change.
  public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: KeychainAccessFlags.biometryCurrentSet.rawValue)
  /// The passcode.
  public static let devicePasscode = SecAccessControlCreateFlags(rawValue: KeychainAccessFlags.devicePasscode.rawValue)
  /// A paired watch.
  public static let companion = SecAccessControlCreateFlags(rawValue: KeychainAccessFlags.companion.rawValue)
  /// Any one constraint suffices.
  public static let or = SecAccessControlCreateFlags(rawValue: KeychainAccessFlags.or.rawValue)
  /// Every constraint is needed.
  public static let and = SecAccessControlCreateFlags(rawValue: KeychainAccessFlags.and.rawValue)
  /// Guards key use (refused on generic passwords).
  public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: KeychainAccessFlags.privateKeyUsage.rawValue)
  /// An extra application password.
  public static let applicationPassword = SecAccessControlCreateFlags(rawValue: KeychainAccessFlags.applicationPassword.rawValue)
  /// Apple's older name for biometryAny.
  @available(*, deprecated, renamed: "biometryAny")
  public static let touchIDAny = biometryAny
  /// Apple's older name for biometryCurrentSet.
  @available(*, deprecated, renamed: "biometryCurrentSet")
  public static let touchIDCurrentSet = biometryCurrentSet
}

/// An item's accessibility and access-control constraints (Apple's SecAccessControl).
public final class SecAccessControl: @unchecked Sendable {
  /// The accessibility class.
  let accessibility: KeychainAccessibility
  /// The constraints.
  let flags: KeychainAccessFlags

  init(accessibility: KeychainAccessibility, flags: KeychainAccessFlags) {
    self.accessibility = accessibility
    self.flags = flags
  }
}

// The errors SecAccessControlCreateWithFlags reports are in Foundation's NSOSStatusErrorDomain.

/// Creates an access-control object; nil (with `error` set to errSecParam) when the protection or the flags
/// break Apple's rules: .or with .and, two biometry constraints, userPresence with another constraint.
public func SecAccessControlCreateWithFlags(
  _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
  func fail(_ why: String) -> SecAccessControl? {
    let failure = NSError(domain: NSOSStatusErrorDomain, code: Int(errSecParam), userInfo: [NSLocalizedDescriptionKey: why])
    error?.pointee = Unmanaged.passRetained(failure)
    return nil
  }
  guard let raw = protection as? String, let accessibility = KeychainAccessibility(rawValue: raw) else {
    return fail("invalid protection")
  }
  let core = KeychainAccessFlags(rawValue: flags.rawValue)
  if let problem = core.validationProblem() { return fail(problem) }
  return SecAccessControl(accessibility: accessibility, flags: core)
}

/// The type identifier of SecAccessControl objects (for completeness; always the same value).
public func SecAccessControlGetTypeID() -> UInt { 0x5345_4341 }
