// What Apple's LocalAuthentication brings with it: Foundation (NSError, Data, Date) and Dispatch (DispatchQueue)
// come with `import LocalAuthentication`, as they do on Apple's systems; NSErrorPointer, which Linux's Foundation
// lacks; LAError(_nsError:); and LAContext hashable by identity, as every NSObject is.
@_exported import Dispatch
@_exported import Foundation

/// A pointer an NSError is returned through (Apple's NSErrorPointer; an UnsafeMutablePointer here, as Linux
/// has no autoreleasing pointers: `var error: NSError?` and `&error` work unchanged).
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

extension LAError {
  /// Wraps an NSError of `LAErrorDomain` (Apple's `LAError(_nsError:)`); its user info is kept. As on Apple's
  /// systems, another domain is a programming error and traps; a code Apple does not define reads as
  /// `authenticationFailed` (fail closed).
  public init(_nsError error: NSError) {
    precondition(error.domain == LAErrorDomain, "LAError(_nsError:) needs an error of LAErrorDomain, not \(error.domain)")
    self.init(Code(rawValue: error.code) ?? .authenticationFailed, userInfo: error.userInfo)
  }

  /// The error as an NSError (Apple's `_nsError`).
  public var _nsError: NSError { nsError }
}

extension LAContext: Hashable {
  /// Two contexts are equal only when they are the same object (NSObject's identity, as Apple's LAContext has).
  public static func == (lhs: LAContext, rhs: LAContext) -> Bool { lhs === rhs }

  /// Hashes the object's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
