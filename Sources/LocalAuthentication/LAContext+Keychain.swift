import Foundation
import LocalAuthCore

/// The kind of credential `setCredential(_:type:)` supplies (Apple's LACredentialType).
public enum LACredentialType: Int, Sendable {
  /// The application password of an item created with `.applicationPassword`.
  case applicationPassword = 0
}

extension LAContext {
  /// Supplies an application password for keychain items created with `.applicationPassword`, so that reading
  /// them asks nothing; nil clears it. Returns true when the credential was accepted.
  @discardableResult
  public func setCredential(_ credential: Data?, type: LACredentialType) -> Bool {
    if evaluatesThroughHelper {
      // The password goes to the helper's session, which holds it for this context's keychain calls.
      guard credential.map({ $0.count <= SecretBytes.maximumLength }) ?? true else { return false }
      let call = ApplicationPasswordRequest(password: credential.map { Array($0) }).encode()
      guard let answer = try? helperCall(call), case .done = answer.reply else {
        return false
      }
      withState { $0.credentialSet = credential != nil }
      return true
    }
    return withState { state in
      state.keychainAuthorization.applicationPassword?.wipe()
      state.keychainAuthorization.applicationPassword = credential.map { SecretBytes(Array($0)) }
      return true
    }
  }

  /// True when an application password was set with `setCredential(_:type:)`.
  public func isCredentialSet(_ type: LACredentialType) -> Bool {
    withState { $0.keychainAuthorization.applicationPassword != nil || $0.credentialSet }
  }

  /// What the Security product needs to read an item with this context: its environment, a request template
  /// (reason, titles, interaction, cancellation, who asks), and what the context already established.
  package func keychainSession(reason: String) -> Result<KeychainSession, LAError> {
    let job = prepare(.deviceOwnerAuthentication, reason: reason.isEmpty ? "access a keychain item" : reason)
    switch job {
    case .refuse(let error):
      return .failure(error as? LAError ?? LAError(.invalidContext))
    case .helper:
      return .failure(LAError(.invalidContext))
    case .run(let evaluation):
      var dependencies = evaluation.configuration.dependencies
      dependencies.sensor = CancellableSensor(dependencies.sensor, flag: cancellation, clock: dependencies.clock)
      return .success(
        KeychainSession(
          configuration: evaluation.configuration, dependencies: dependencies, request: evaluation.request,
          authorization: withState { $0.keychainAuthorization }))
    }
  }

  /// Keeps what a keychain read established, so that the next read with this context asks nothing more.
  package func keepKeychainAuthorization(_ authorization: KeychainAuthorization) {
    withState { $0.keychainAuthorization.merge(authorization) }
  }
}

/// One keychain operation's view of a context (package-internal, for the Security product).
package struct KeychainSession {
  package let configuration: LAContextConfiguration
  package let dependencies: Dependencies
  package let request: EvaluationRequest
  package var authorization: KeychainAuthorization

  /// The user whose keychain it is.
  package var user: UserName { request.user }

  /// The core's SecItem operations over `keychain`, evaluating in this session's environment.
  package func operations(_ keychain: Keychain) -> KeychainOperations {
    KeychainOperations(keychain: keychain, dependencies: dependencies, settings: configuration.settings)
  }
}
