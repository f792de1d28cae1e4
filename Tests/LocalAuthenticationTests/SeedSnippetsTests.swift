import Dispatch
import Foundation
import LocalAuthCore
import LocalAuthentication
import Testing

// Swift snippets of three public LocalAuthentication examples (docs/LocalAuthentication.md, section 6), nearly
// verbatim, as clients of `import LocalAuthentication`. The only change to each is how it reaches a test
// environment: the snippets create `LAContext()` / the facade unchanged, and the tests run them inside
// `LAContext.$defaultConfiguration.withValue(environment.configuration) { … }`. Comment-only `guard … else { }`
// bodies have a `return` (and a report) added so that they compile.

// MARK: - The canEvaluate/evaluate example (iOS local authentication)

/// The canEvaluate/evaluate example; `report` stands for the comments' "take appropriate action".
func seed001Example(report: @escaping @Sendable (String) -> Void) {
  let context = LAContext()
  var error: NSError?

  guard context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error) else {
    // Could not evaluate policy; look at error and present an appropriate message to user
    report("cannot evaluate: \(error?.code ?? 0)")
    return
  }

  context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Please, pass authorization to enter this area") { success, evaluationError in
    guard success else {
      // User did not authenticate successfully, look at evaluationError and take appropriate action
      report("failed: \(evaluationError?._code ?? 0)")
      return
    }

    // User authenticated successfully, take appropriate action
    report("authenticated")
  }
}

// MARK: - A biometric-login article (biometric authentication in iOS)

/// The article's UserDefaults wrapper, in memory.
enum UserDefaultsHelper {
  private static let storage = SeedStorage()
  /// The domain state saved at the last check.
  static var biometricDate: Data? {
    get { storage.value }
    set { storage.value = newValue }
  }
}

/// A locked box for the stand-in's value.
final class SeedStorage: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Data?
  var value: Data? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

// Проверяем, были ли изменены биометрические данные
func biometricDateIsValid() -> Bool {
  let context = LAContext()
  context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
  var result: Bool = true
  // Получаем сохраненный биометрические данные
  let oldDomainState = UserDefaultsHelper.biometricDate
  // Получаем текущие биометрические данные
  guard let domainState = context.evaluatedPolicyDomainState
  else { return result }
  // Сохраняем новые текущие биометрические данные в UserDefaults
  UserDefaultsHelper.biometricDate = domainState
  result = (domainState == oldDomainState || oldDomainState == nil)
  return result
}

/// The article's canEvaluate-then-evaluate wrapper.
func seed003Authenticate(reason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void) {
  let context = LAContext()
  var authError: NSError?
  if context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &authError) {
    context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics,
                           localizedReason: reason) { success, evaluateError in
      reply(success, evaluateError)
    }
  } else {
    guard let error = authError else {
      return
    }
    reply(false, error)
  }
}

/// What the article's error handling shows.
enum SeedAlert: Equatable {
  /// "показываем alert с возможностью перехода в настройки телефона"
  case offerSettings
  /// "Уведомляем пользователя об ошибке и невозможности аутентификации"
  case notifyFailure
}

/// The article's error switch, verbatim apart from returning what it would show.
@available(*, deprecated, message: "uses the deprecated touchID* names in its pre-iOS 11 branch, as the article does")
func seed003Handle(_ error: any Error) -> SeedAlert {
  let errorCode = error._code
  if #available(iOS 11.0, *) {
    if [LAError.biometryLockout.rawValue,
        LAError.biometryNotEnrolled.rawValue].contains(where: { $0 == errorCode }) {
      /* показываем alert с возможностью перехода в настройки телефона */
      return .offerSettings
    } else {
      /* Уведомляем пользователя об ошибке и невозможности аутентификации*/
      return .notifyFailure
    }
  } else {
    if [LAError.touchIDLockout.rawValue,
        LAError.touchIDNotEnrolled.rawValue].contains(where: { $0 == errorCode }) {
      /* показываем alert с возможностью перехода в настройки телефона */
      return .offerSettings
    } else {
      /* Уведомляем пользователя об ошибке и невозможности аутентификации*/
      return .notifyFailure
    }
  }
}

/// The `else` (pre-iOS 11) branch on its own: on Linux `#available(iOS 11.0, *)` is always true.
@available(*, deprecated, message: "uses the deprecated touchID* names, as the article does")
func seed003HandleLegacy(_ error: any Error) -> SeedAlert {
  let errorCode = error._code
  if [LAError.touchIDLockout.rawValue,
      LAError.touchIDNotEnrolled.rawValue].contains(where: { $0 == errorCode }) {
    return .offerSettings
  } else {
    return .notifyFailure
  }
}

// MARK: - The BiometricAuthenticationFacade example

/// The facade's private `passByBiometricsWithReason:succesBlock:failureBlock:` written against LAContext.
/// The article hops to the main queue; a Linux test process has no main run loop, so this uses a global queue.
func passByBiometrics(
  context: LAContext, reason: String, successBlock: @escaping @Sendable () -> Void,
  failureBlock: @escaping @Sendable ((any Error)?) -> Void
) {
  context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: reason) { success, error in
    DispatchQueue.global().async {
      if success {
        successBlock()
      } else {
        failureBlock(error)
      }
    }
  }
}

/// How a success/failure block pair ended.
enum BlockResult {
  case success
  case failure((any Error)?)

  var succeeded: Bool { if case .success = self { true } else { false } }
  var error: (any Error)? { if case .failure(let error) = self { error } else { nil } }
}

/// Awaits a success/failure block pair.
func blocks(_ start: (@escaping @Sendable () -> Void, @escaping @Sendable ((any Error)?) -> Void) -> Void) async -> BlockResult {
  await withCheckedContinuation { continuation in
    start({ continuation.resume(returning: .success) }, { continuation.resume(returning: .failure($0)) })
  }
}

@Suite("Seed snippets", .serialized)
struct SeedSnippetsTests {
  /// Runs the canEvaluate/evaluate example and returns what it reported.
  func runSeed001(_ environment: TestEnvironment) async -> String {
    await withCheckedContinuation { continuation in
      LAContext.$defaultConfiguration.withValue(environment.configuration) {
        seed001Example { continuation.resume(returning: $0) }
      }
    }
  }

  @Test("canEvaluate/evaluate example: biometry first, then the passcode; no passcode → cannot evaluate")
  func seed001() async throws {
    let environment = try TestEnvironment.ready()
    environment.touch()
    #expect(await runSeed001(environment) == "authenticated")
    // Touch ID off (no usable finger): straight to the device passcode, as the article says.
    environment.scripted.enqueue(.cancel)
    #expect(await runSeed001(environment) == "failed: -2")
    environment.impostor()
    environment.scripted.enqueue(.fallback)
    environment.prompter.enqueue("1234")
    #expect(await runSeed001(environment) == "authenticated")

    let noPasscode = TestEnvironment()
    #expect(await runSeed001(noPasscode) == "cannot evaluate: -5")
  }

  @Test("biometric-login article: biometricDateIsValid is true while nothing changes, false after enrolling another finger")
  func seed003DomainState() throws {
    let environment = try TestEnvironment.ready()
    let check = { LAContext.$defaultConfiguration.withValue(environment.configuration) { biometricDateIsValid() } }
    UserDefaultsHelper.biometricDate = nil
    #expect(check())
    #expect(UserDefaultsHelper.biometricDate != nil)
    #expect(check())
    try environment.enroll("left-thumb")
    #expect(!check())
    // The article saves the new state, so the next check accepts it again.
    #expect(check())
    try environment.unenroll("left-thumb")
    #expect(!check())
    // Nothing enrolled: no domain state, and the article's guard returns true.
    try environment.unenroll("right-index")
    #expect(check())
  }

  /// Runs the article's wrapper and returns its reply.
  func runSeed003(_ environment: TestEnvironment) async -> (Bool, (any Error)?) {
    await withCheckedContinuation { continuation in
      LAContext.$defaultConfiguration.withValue(environment.configuration) {
        seed003Authenticate(reason: "Войти в приложение") { continuation.resume(returning: ($0, $1)) }
      }
    }
  }

  @available(*, deprecated, message: "exercises the article's touchID* branch")
  @Test("biometric-login article: lockout and not-enrolled offer the settings; other errors notify; touchID* branch agrees")
  func seed003Errors() async throws {
    let environment = try TestEnvironment.ready()
    environment.touch()
    let (success, none) = await runSeed003(environment)
    #expect(success && none == nil)

    environment.scripted.enqueue(.cancel)
    let (_, cancel) = await runSeed003(environment)
    let cancelError = try #require(cancel)
    #expect(cancelError._code == LAError.userCancel.rawValue)
    #expect(seed003Handle(cancelError) == .notifyFailure)
    #expect(seed003HandleLegacy(cancelError) == .notifyFailure)

    for _ in 0..<3 { environment.impostor() }
    _ = await runSeed003(environment)
    for _ in 0..<2 { environment.impostor() }
    let (_, locked) = await runSeed003(environment)
    #expect(locked?._code == LAError.biometryLockout.rawValue)
    // Now canEvaluatePolicy itself reports the lockout as an NSError.
    let (_, preflight) = await runSeed003(environment)
    let lockout = try #require(preflight)
    #expect((lockout as NSError).domain == LAErrorDomain)
    #expect(lockout._code == -8)
    #expect(seed003Handle(lockout) == .offerSettings)
    #expect(seed003HandleLegacy(lockout) == .offerSettings)

    let unenrolled = TestEnvironment()
    try unenrolled.setPasscode()
    let (_, notEnrolled) = await runSeed003(unenrolled)
    let notEnrolledError = try #require(notEnrolled)
    #expect(notEnrolledError._code == LAError.touchIDNotEnrolled.rawValue)
    #expect(seed003Handle(notEnrolledError) == .offerSettings)
    #expect(seed003HandleLegacy(notEnrolledError) == .offerSettings)
  }

  @Test("biometric-login article: logging out ends the reuse window, so Face ID cannot log straight back in")
  func seed003LoginLoop() async throws {
    let environment = try TestEnvironment.ready(modality: .faceID)
    environment.touch()
    let context = environment.context()
    context.touchIDAuthenticationAllowableReuseDuration = 30
    let (first, _) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(first)
    try context.endReuseWindow()
    environment.scripted.enqueue(.cancel)
    let (again, error) = await evaluate(environment.context(), .deviceOwnerAuthenticationWithBiometrics)
    #expect(!again)
    #expect(laCode(error) == .userCancel)
  }

  @Test("facade example: the facade flow — enable freely, authenticate with the finger, disable only as owner")
  func facadeFlow() async throws {
    let environment = try TestEnvironment.ready()
    let facade = LAContext.$defaultConfiguration.withValue(environment.configuration) { BiometricAuthenticationFacade() }
    let feature = "money-transfer"

    #expect(facade.isAuthenticationAvailable)
    #expect(!facade.isAuthenticationEnabled(forFeature: feature))
    // Not enabled yet: access is granted without a scan.
    #expect(await blocks { facade.authenticate(forFeature: feature, reason: "Confirm the transfer", success: $0, failure: $1) }.succeeded)

    #expect(await blocks { facade.enableAuthentication(forFeature: feature, success: $0, failure: $1) }.succeeded)
    #expect(facade.isAuthenticationEnabled(forFeature: feature))

    environment.touch()
    #expect(await blocks { facade.authenticate(forFeature: feature, reason: "Confirm the transfer", success: $0, failure: $1) }.succeeded)

    // Someone else's finger cannot turn the protection off.
    for _ in 0..<3 { environment.impostor() }
    let refused = await blocks { facade.disableAuthentication(forFeature: feature, reason: "Turn off", success: $0, failure: $1) }
    #expect(laCode(refused.error) == .authenticationFailed)
    #expect(facade.isAuthenticationEnabled(forFeature: feature))

    // The fallback button ends the biometrics-only evaluation with userFallback (the app's own password UI).
    environment.impostor()
    environment.scripted.enqueue(.fallback)
    let fallback = await blocks { facade.authenticate(forFeature: feature, reason: "Confirm", success: $0, failure: $1) }
    #expect(laCode(fallback.error) == .userFallback)

    environment.touch()
    #expect(await blocks { facade.disableAuthentication(forFeature: feature, reason: "Turn off", success: $0, failure: $1) }.succeeded)
    #expect(!facade.isAuthenticationEnabled(forFeature: feature))

    // The facade's private passByBiometrics, as a client of LAContext.
    environment.touch()
    let direct = await blocks { passByBiometrics(context: environment.context(), reason: "Confirm", successBlock: $0, failureBlock: $1) }
    #expect(direct.succeeded)
  }
}
