import Foundation
// `LAError.Code` is the core's table; re-exporting that one type lets an app that imports only this module use its
// cases and members (also under the MemberImportVisibility feature).
@_exported import enum LocalAuthCore.AuthErrorCode

/// The error domain of every `LAError` ("com.apple.LocalAuthentication", as on Apple platforms).
public let LAErrorDomain = "com.apple.LocalAuthentication"

/// An authentication error, in the shape of Apple's Swift `LAError`: a struct with a `code`.
///
/// It bridges to `NSError` with domain `LAErrorDomain`, the code's raw value and a localized description,
/// so `error._code`, `(error as NSError).code` and `catch LAError.userCancel` all work as on Apple platforms.
public struct LAError: CustomNSError, LocalizedError, Hashable, @unchecked Sendable {
  /// The error codes: the core's table of Apple's codes (raw values, names, sentences), so this module restates
  /// none. `LAError.Code.userCancel`, `LAError.Code(rawValue:)` and `allCases` work as on Apple platforms.
  public typealias Code = AuthErrorCode

  /// The error's code.
  public let code: Code
  private let extraUserInfo: [String: Any]

  /// Creates an error with a code and optional extra user info.
  public init(_ code: Code, userInfo: [String: Any] = [:]) {
    self.code = code
    self.extraUserInfo = userInfo
  }

  /// The error domain, `LAErrorDomain`.
  public static var errorDomain: String { LAErrorDomain }

  /// The code's raw value.
  public var errorCode: Int { code.rawValue }

  /// The user info, always with `NSLocalizedDescriptionKey`.
  public var errorUserInfo: [String: Any] {
    var info = extraUserInfo
    if info[NSLocalizedDescriptionKey] == nil { info[NSLocalizedDescriptionKey] = code.localizedDescription }
    return info
  }

  /// The localized description.
  public var errorDescription: String? { errorUserInfo[NSLocalizedDescriptionKey] as? String }

  /// The error as an `NSError` (domain, code and user info).
  public var nsError: NSError { NSError(domain: LAErrorDomain, code: code.rawValue, userInfo: errorUserInfo) }

  /// Two errors are equal when their codes are (Apple compares the bridged NSError; user info is not compared here).
  public static func == (lhs: LAError, rhs: LAError) -> Bool { lhs.code == rhs.code }

  public func hash(into hasher: inout Hasher) { hasher.combine(code) }

  /// The user failed to provide valid credentials (Apple: `Code` statics on `LAError`, so `LAError.biometryLockout.rawValue` works).
  public static var authenticationFailed: Code { .authenticationFailed }
  /// The user pressed Cancel.
  public static var userCancel: Code { .userCancel }
  /// The user pressed the fallback button.
  public static var userFallback: Code { .userFallback }
  /// The system cancelled.
  public static var systemCancel: Code { .systemCancel }
  /// No passcode is set.
  public static var passcodeNotSet: Code { .passcodeNotSet }
  /// Biometry is not available.
  public static var biometryNotAvailable: Code { .biometryNotAvailable }
  /// No identity is enrolled.
  public static var biometryNotEnrolled: Code { .biometryNotEnrolled }
  /// Biometry is locked out.
  public static var biometryLockout: Code { .biometryLockout }
  /// The application cancelled.
  public static var appCancel: Code { .appCancel }
  /// The context was invalidated.
  public static var invalidContext: Code { .invalidContext }
  /// No companion is available.
  public static var companionNotAvailable: Code { .companionNotAvailable }
  /// No biometric accessory is paired.
  public static var biometryNotPaired: Code { .biometryNotPaired }
  /// The biometric accessory is disconnected.
  public static var biometryDisconnected: Code { .biometryDisconnected }
  /// Invalid UI dimensions.
  public static var invalidDimensions: Code { .invalidDimensions }
  /// Interaction is not allowed.
  public static var notInteractive: Code { .notInteractive }
  /// Deprecated spelling of `biometryNotAvailable`.
  @available(*, deprecated, renamed: "biometryNotAvailable")
  public static var touchIDNotAvailable: Code { .biometryNotAvailable }
  /// Deprecated spelling of `biometryNotEnrolled`.
  @available(*, deprecated, renamed: "biometryNotEnrolled")
  public static var touchIDNotEnrolled: Code { .biometryNotEnrolled }
  /// Deprecated spelling of `biometryLockout`.
  @available(*, deprecated, renamed: "biometryLockout")
  public static var touchIDLockout: Code { .biometryLockout }
  /// Deprecated spelling of `companionNotAvailable`.
  @available(*, deprecated, renamed: "companionNotAvailable")
  public static var watchNotAvailable: Code { .companionNotAvailable }
}

extension LAError {
  /// Linux-only: reads an `LAError` back from any error, including an `NSError` in `LAErrorDomain`
  /// (Apple bridges with `as? LAError`, which the Linux runtime cannot do for NSError values).
  public init?(bridging error: any Error) {
    if let error = error as? LAError {
      self = error
      return
    }
    let ns = error as NSError
    guard ns.domain == LAErrorDomain, let code = Code(rawValue: ns.code) else { return nil }
    self.init(code, userInfo: ns.userInfo)
  }
}

extension LAError.Code {
  /// Deprecated spelling of `biometryNotAvailable`.
  @available(*, deprecated, renamed: "biometryNotAvailable")
  public static let touchIDNotAvailable = LAError.Code.biometryNotAvailable
  /// Deprecated spelling of `biometryNotEnrolled`.
  @available(*, deprecated, renamed: "biometryNotEnrolled")
  public static let touchIDNotEnrolled = LAError.Code.biometryNotEnrolled
  /// Deprecated spelling of `biometryLockout`.
  @available(*, deprecated, renamed: "biometryLockout")
  public static let touchIDLockout = LAError.Code.biometryLockout
  /// Deprecated spelling of `companionNotAvailable`.
  @available(*, deprecated, renamed: "companionNotAvailable")
  public static let watchNotAvailable = LAError.Code.companionNotAvailable

  /// Matches an error whose domain is `LAErrorDomain` and whose code is this one (`catch LAError.userCancel`).
  public static func ~= (match: LAError.Code, error: any Error) -> Bool {
    LAError(bridging: error)?.code == match
  }
}
