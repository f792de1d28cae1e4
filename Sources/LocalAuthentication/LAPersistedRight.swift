import Dispatch
import Foundation
import LocalAuthCore

/// A right that gates access to a key and a secret (Apple's `LAPersistedRight`, iOS 16 / macOS 13).
///
/// Only `LARightStore` makes them. The key and the secret stay in the user's keychain, on the privileged side;
/// private-key operations and `secret.loadData` work only while the right is authorized, on what its
/// authorization established, and never prompt; public-key operations always work (docs/RULES.md, "Persisted
/// rights").
///
/// ```swift
/// let right = try await LARightStore.shared.right(forIdentifier: "server-access")
/// try await right.authorize(localizedReason: "sign in to the server")
/// let signature = try await right.key.sign(challenge, algorithm: .ecdsaSignatureMessageX962SHA256)
/// ```
public final class LAPersistedRight: LARight, @unchecked Sendable {
  /// The private key that's persisted by the right.
  public let key: LAPrivateKey
  /// The data kept secret by the right.
  public let secret: LASecret
  /// The identifier the right is stored under.
  let identifier: String

  /// A right as the store returned it, in `configuration` (the environment of the store's call).
  init(_ stored: PersistedRight, configuration: LAContextConfiguration?) {
    let link = RightLink(identifier: stored.identifier, hasSecret: stored.hasSecret)
    identifier = stored.identifier
    key = LAPrivateKey(link: link, publicKey: LAPublicKey(stored.publicKey))
    secret = LASecret(link: link)
    super.init(
      requirement: LAAuthenticationRequirement(stored: stored.requirement), configuration: configuration,
      boundEnrollment: domainStateData(stored.domainState))
    link.right = self
  }
}

/// Data that's protected by a persisted right (Apple's `LASecret`); only a right store makes one.
public final class LASecret: @unchecked Sendable {
  let link: RightLink

  init(link: RightLink) { self.link = link }

  /// Retrieves the data stored in the secret: `handler` gets it once the right is authorized, or an `LAError`:
  /// `notInteractive` while it is not (nothing is asked), `invalidContext` when no secret (or no right) is stored.
  public func loadData(completion handler: @escaping @Sendable (Data?, (any Error)?) -> Void) {
    let link = link
    link.run({ context in
      guard link.hasSecret else { throw RightErrors.missing("No secret was saved with this right.") }
      guard case .bytes(let data) = try context.rightCall(.secret(link.identifier)) else { throw RightErrors.unexpected }
      return Data(data)
    }, handler)
  }

  /// The data stored in the secret (the async form of `loadData(completion:)`, as Apple names it).
  public var rawData: Data {
    get async throws { try await loadData() }
  }

  /// The data stored in the secret (the async form of `loadData(completion:)`).
  public func loadData() async throws -> Data {
    try await withCheckedThrowingContinuation { continuation in
      loadData { data, error in continuation.resume(with: RightErrors.result(data, error)) }
    }
  }
}

/// What a persisted right's key and secret share: the identifier, and the right whose authorization they use.
final class RightLink: @unchecked Sendable {
  let identifier: String
  let hasSecret: Bool
  /// The right; weak, so that the right, its key and its secret are freed together.
  weak var right: LAPersistedRight?

  init(identifier: String, hasSecret: Bool) {
    self.identifier = identifier
    self.hasSecret = hasSecret
  }

  /// Runs `body` on a background thread with the context that authorized the right, and calls `handler` once
  /// with its result or the mapped error; `notInteractive` when the right is not authorized.
  func run<T: Sendable>(
    _ body: @escaping @Sendable (LAContext) throws -> T, _ handler: @escaping @Sendable (T?, (any Error)?) -> Void
  ) {
    DispatchQueue.global(qos: .userInitiated).async {
      guard let context = self.right?.authorizationContext else {
        handler(nil, RightErrors.notAuthorized)
        return
      }
      do { handler(try body(context), nil) } catch { handler(nil, RightErrors.map(error)) }
    }
  }
}

/// The one place where a right's failures become the errors its callers see (docs/RULES.md, "Persisted rights").
enum RightErrors {
  /// The right is not authorized, so its private key and secret cannot be used (nothing is asked).
  static var notAuthorized: LAError {
    LAError(.notInteractive, userInfo: [NSDebugDescriptionErrorKey: "The right is not authorized: authorize it first."])
  }

  /// No right, or no secret, is stored under what was asked.
  static func missing(_ why: String) -> LAError { LAError(.invalidContext, userInfo: [NSDebugDescriptionErrorKey: why]) }

  /// A reply that does not fit the call.
  static var unexpected: LAError {
    LAError(.systemCancel, userInfo: [NSDebugDescriptionErrorKey: "The right store sent an unexpected answer."])
  }

  /// The caller's error for a core or helper failure: missing → `invalidContext`; not satisfied by the
  /// authorization → `notInteractive`; a bad input → errSecParam (NSOSStatusErrorDomain, as SecKey reports it);
  /// `biometryCurrentSet` with nothing enrolled → `biometryNotEnrolled`; anything else as `ErrorMapping` maps it.
  static func map(_ error: any Error, requirement: RightRequirement? = nil) -> any Error {
    if error is LAError { return error }
    if (error as NSError).domain == KeyErrors.domain { return error }
    guard case LocalAuthError.keychain(let keychain) = error else { return ErrorMapping.error(for: error) }
    switch keychain {
    case .itemNotFound: return missing("No right (or no secret) is stored under this identifier.")
    case .interactionNotAllowed, .authenticationFailed:
      return LAError(
        .notInteractive,
        userInfo: [NSDebugDescriptionErrorKey: "The right's authorization does not satisfy its key's access control."])
    case .parameter(let why): return KeyErrors.parameter(why)
    case .notAvailable where requirement == .biometryCurrentSet:
      return LAError(.biometryNotEnrolled, userInfo: [NSDebugDescriptionErrorKey: "\(keychain)"])
    default: return ErrorMapping.error(for: error)
    }
  }

  /// A completion's arguments as a result.
  static func result<T>(_ value: T?, _ error: (any Error)?) -> Result<T, any Error> {
    if let value { return .success(value) }
    return .failure(error ?? unexpected)
  }
}
