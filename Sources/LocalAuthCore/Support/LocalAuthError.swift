/// Every error the core throws where several kinds meet (an evaluation, an administrative change, a store
/// update): one typed error, so that both Swift modes (Embedded has no `any Error`) and the one place that maps
/// errors to PAM codes see every case.
public enum LocalAuthError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The state folder or a record could not be read or written safely.
  case state(StateError)
  /// Talking to the user failed.
  case prompt(PromptError)
  /// The module arguments or the configuration file are wrong.
  case config(ConfigError)
  /// The caller used the API wrongly (an empty reason).
  case usage(UsageError)
  /// An administrative change was refused.
  case administration(AdministrationError)
  /// A touch, cancel or fallback could not be presented to a prompt.
  case touchDelivery(TouchDeliveryError)
  /// localauth-helper, which serves unprivileged applications, could not be used or broke off.
  case helper(HelperCallError)
  /// A keychain item could not be stored or released.
  case keychain(KeychainError)

  public var description: String {
    switch self {
    case .state(let error): error.description
    case .prompt(let error): error.description
    case .config(let error): error.description
    case .usage(let error): error.description
    case .administration(let error): error.description
    case .touchDelivery(let error): error.description
    case .helper(let error): error.description
    case .keychain(let error): error.description
    }
  }
}

/// Runs `body`, passing on the `StateError` it throws as `LocalAuthError.state`.
func withStateErrors<T>(_ body: () throws(StateError) -> T) throws(LocalAuthError) -> T {
  do { return try body() } catch { throw .state(error) }
}
