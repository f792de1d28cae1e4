import Foundation
import LocalAuthCore
import LocalAuthentication
import Testing

// A client in the style of the BiometricAuthentication wrappers that switch on Apple's C constants
// (`switch Int32(error.errorCode) { case kLAErrorAuthenticationFailed: … }`), written as such a client would.

/// The wrapper's own error type.
enum WrapperError: Equatable {
  case failed, canceledByUser, fallback, canceledBySystem, passcodeNotSet, biometryNotAvailable, biometryNotEnrolled
  case biometryLockedOut, other

  /// Maps an LAError through the C constants.
  static func from(_ error: LAError) -> WrapperError {
    switch Int32(error.errorCode) {
    case kLAErrorAuthenticationFailed: .failed
    case kLAErrorUserCancel: .canceledByUser
    case kLAErrorUserFallback: .fallback
    case kLAErrorSystemCancel: .canceledBySystem
    case kLAErrorPasscodeNotSet: .passcodeNotSet
    case kLAErrorBiometryNotAvailable: .biometryNotAvailable
    case kLAErrorBiometryNotEnrolled: .biometryNotEnrolled
    case kLAErrorBiometryLockout: .biometryLockedOut
    default: .other
    }
  }

  /// Maps the NSError of `canEvaluatePolicy` through the older constants, as Objective-C-era code does.
  static func from(_ error: NSError) -> WrapperError {
    guard error.domain == kLAErrorDomain else { return .other }
    switch Int32(error.code) {
    case kLAErrorTouchIDNotAvailable: return .biometryNotAvailable
    case kLAErrorTouchIDNotEnrolled: return .biometryNotEnrolled
    case kLAErrorTouchIDLockout: return .biometryLockedOut
    case kLAErrorPasscodeNotSet: return .passcodeNotSet
    default: return .other
    }
  }
}

/// The wrapper's evaluation: the biometrics-only policy, the error mapped through the constants.
func wrapperAuthenticate(reason: String) async -> WrapperError? {
  let context = LAContext()
  let policy = LAPolicy(rawValue: Int(kLAPolicyDeviceOwnerAuthenticationWithBiometrics))!
  var error: NSError?
  guard context.canEvaluatePolicy(policy, error: &error) else { return error.map(WrapperError.from) ?? .other }
  return await withCheckedContinuation { continuation in
    context.evaluatePolicy(policy, localizedReason: reason) { success, error in
      continuation.resume(returning: success ? nil : (error as? LAError).map(WrapperError.from) ?? .other)
    }
  }
}

@Suite("LAPublicDefines constants")
struct PublicDefinesTests {
  /// Every error constant with the code of the same meaning and Apple's value.
  static let errors: [(Int32, LAError.Code, Int32)] = [
    (kLAErrorAuthenticationFailed, .authenticationFailed, -1), (kLAErrorUserCancel, .userCancel, -2),
    (kLAErrorUserFallback, .userFallback, -3), (kLAErrorSystemCancel, .systemCancel, -4),
    (kLAErrorPasscodeNotSet, .passcodeNotSet, -5), (kLAErrorBiometryNotAvailable, .biometryNotAvailable, -6),
    (kLAErrorTouchIDNotAvailable, .biometryNotAvailable, -6), (kLAErrorBiometryNotEnrolled, .biometryNotEnrolled, -7),
    (kLAErrorTouchIDNotEnrolled, .biometryNotEnrolled, -7), (kLAErrorBiometryLockout, .biometryLockout, -8),
    (kLAErrorTouchIDLockout, .biometryLockout, -8), (kLAErrorAppCancel, .appCancel, -9),
    (kLAErrorInvalidContext, .invalidContext, -10), (kLAErrorCompanionNotAvailable, .companionNotAvailable, -11),
    (kLAErrorWatchNotAvailable, .companionNotAvailable, -11), (kLAErrorBiometryNotPaired, .biometryNotPaired, -12),
    (kLAErrorBiometryDisconnected, .biometryDisconnected, -13), (kLAErrorInvalidDimensions, .invalidDimensions, -14),
    (kLAErrorNotInteractive, .notInteractive, -1004),
  ]

  @Test("every kLAError constant has Apple's value and is the raw value of its LAError.Code; every code has one")
  func errorConstants() {
    for (constant, code, apple) in Self.errors {
      #expect(constant == apple)
      #expect(LAError.Code(rawValue: Int(constant)) == code)
    }
    #expect(LAError.Code(rawValue: Int(kLAErrorUserCancel)) == .userCancel)
    #expect(Set(Self.errors.map(\.1)) == Set(LAError.Code.allCases))
  }

  @Test("policy, domain, biometry type, credential and access-control constants")
  func otherConstants() {
    #expect(kLAPolicyDeviceOwnerAuthenticationWithBiometrics == 1)
    #expect(kLAPolicyDeviceOwnerAuthentication == 2)
    #expect(LAPolicy(rawValue: Int(kLAPolicyDeviceOwnerAuthenticationWithBiometrics)) == .deviceOwnerAuthenticationWithBiometrics)
    #expect(LAPolicy(rawValue: Int(kLAPolicyDeviceOwnerAuthentication)) == .deviceOwnerAuthentication)
    #expect(kLAErrorDomain == "com.apple.LocalAuthentication")
    #expect(kLAErrorDomain == LAErrorDomain)
    #expect([kLABiometryTypeNone, kLABiometryTypeTouchID, kLABiometryTypeFaceID, kLABiometryTypeOpticID] == [0, 1, 2, 4])
    #expect(LABiometryType(rawValue: Int(kLABiometryTypeFaceID)) == .faceID)
    #expect(kLACredentialTypeApplicationPassword == 0)
    #expect(LACredentialType(rawValue: Int(kLACredentialTypeApplicationPassword)) == .applicationPassword)
    let operations = [
      kLAAccessControlOperationCreateItem, kLAAccessControlOperationUseItem, kLAAccessControlOperationCreateKey,
      kLAAccessControlOperationUseKeySign, kLAAccessControlOperationUseKeyDecrypt,
      kLAAccessControlOperationUseKeyKeyExchange,
    ]
    #expect(operations == [0, 1, 2, 3, 4, 5])
  }

  @Test("a wrapper switching on Int32(error.errorCode) maps real evaluation errors")
  func wrapperMapsEvaluations() async throws {
    let environment = try TestEnvironment.ready()
    try await LAContext.$defaultConfiguration.withValue(environment.configuration) {
      environment.touch()
      #expect(await wrapperAuthenticate(reason: "Confirm your fingerprint to authenticate.") == nil)
      #expect(environment.transcript.last == "info: Confirm your fingerprint to authenticate. Place your finger on the sensor.")
      environment.scripted.enqueue(.cancel)
      #expect(await wrapperAuthenticate(reason: "log in") == .canceledByUser)
      environment.impostor()
      environment.scripted.enqueue(.fallback)
      #expect(await wrapperAuthenticate(reason: "log in") == .fallback)
      for _ in 0..<3 { environment.impostor() }
      #expect(await wrapperAuthenticate(reason: "log in") == .failed)
      try environment.unenroll("right-index")
      #expect(await wrapperAuthenticate(reason: "log in") == .biometryNotEnrolled)
    }
  }

  @Test("the NSError of canEvaluatePolicy maps through the older kLAErrorTouchID constants")
  func wrapperMapsPreflight() throws {
    let unenrolled = TestEnvironment()
    try unenrolled.setPasscode()
    var error: NSError?
    #expect(!unenrolled.context().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
    #expect(error.map(WrapperError.from) == .biometryNotEnrolled)
    let noSensor = TestEnvironment(modality: nil)
    #expect(!noSensor.context().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
    #expect(error.map(WrapperError.from) == .biometryNotAvailable)
  }
}
