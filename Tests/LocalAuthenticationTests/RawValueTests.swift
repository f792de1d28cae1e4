import Foundation
import LocalAuthCore
@testable import LocalAuthentication
import Testing

@Suite("Apple raw values and constants")
struct RawValueTests {
  @Test("LAPolicy raw values are Apple's")
  func policies() {
    #expect(LAPolicy.deviceOwnerAuthenticationWithBiometrics.rawValue == 1)
    #expect(LAPolicy.deviceOwnerAuthentication.rawValue == 2)
    #expect(LAPolicy(rawValue: 0) == nil)
  }

  @Test("LAError.Code raw values are Apple's (-1…-14, -1004)")
  func errorCodes() {
    let expected: [(LAError.Code, Int)] = [
      (.authenticationFailed, -1), (.userCancel, -2), (.userFallback, -3), (.systemCancel, -4),
      (.passcodeNotSet, -5), (.biometryNotAvailable, -6), (.biometryNotEnrolled, -7), (.biometryLockout, -8),
      (.appCancel, -9), (.invalidContext, -10), (.companionNotAvailable, -11), (.biometryNotPaired, -12),
      (.biometryDisconnected, -13), (.invalidDimensions, -14), (.notInteractive, -1004),
    ]
    for (code, raw) in expected { #expect(code.rawValue == raw) }
    #expect(LAError.Code.allCases.count == expected.count)
    #expect(LAError.Code(rawValue: 0) == nil)
  }

  @Test("LAError statics are codes, as on Apple platforms")
  func errorStatics() {
    #expect(LAError.biometryLockout.rawValue == -8)
    #expect(LAError.biometryNotEnrolled.rawValue == -7)
    #expect(LAError.userCancel == LAError.Code.userCancel)
    #expect(LAError.notInteractive.rawValue == -1004)
  }

  @available(*, deprecated)
  @Test("deprecated touchID* aliases share the biometry* values")
  func deprecatedAliases() {
    #expect(LAError.touchIDNotAvailable == .biometryNotAvailable)
    #expect(LAError.touchIDNotEnrolled == .biometryNotEnrolled)
    #expect(LAError.touchIDLockout == .biometryLockout)
    #expect(LAError.Code.touchIDLockout.rawValue == -8)
    #expect(LAError.Code.touchIDNotEnrolled.rawValue == -7)
    #expect(LAError.Code.touchIDNotAvailable.rawValue == -6)
    #expect(LAError.Code.watchNotAvailable == .companionNotAvailable)
  }

  @Test("LABiometryType raw values are Apple's")
  func biometryTypes() {
    #expect(LABiometryType.none.rawValue == 0)
    #expect(LABiometryType.touchID.rawValue == 1)
    #expect(LABiometryType.faceID.rawValue == 2)
    #expect(LABiometryType.opticID.rawValue == 4)
  }

  @Test("constants: error domain and the 300 s reuse cap")
  func constants() {
    #expect(LAErrorDomain == "com.apple.LocalAuthentication")
    #expect(LAError.errorDomain == LAErrorDomain)
    #expect(LATouchIDAuthenticationMaximumAllowableReuseDuration == 300)
  }

  @Test("LAError.Code is the core's table: Apple's fifteen codes, names and raw values, declared once")
  func coreTable() {
    #expect(LAError.Code.self == AuthErrorCode.self)
    let apple: [(LAError.Code, String, Int)] = [
      (.authenticationFailed, "authenticationFailed", -1), (.userCancel, "userCancel", -2),
      (.userFallback, "userFallback", -3), (.systemCancel, "systemCancel", -4), (.passcodeNotSet, "passcodeNotSet", -5),
      (.biometryNotAvailable, "biometryNotAvailable", -6), (.biometryNotEnrolled, "biometryNotEnrolled", -7),
      (.biometryLockout, "biometryLockout", -8), (.appCancel, "appCancel", -9), (.invalidContext, "invalidContext", -10),
      (.companionNotAvailable, "companionNotAvailable", -11), (.biometryNotPaired, "biometryNotPaired", -12),
      (.biometryDisconnected, "biometryDisconnected", -13), (.invalidDimensions, "invalidDimensions", -14),
      (.notInteractive, "notInteractive", -1004),
    ]
    #expect(Set(AuthErrorCode.allCases) == Set(apple.map(\.0)))
    #expect(AuthErrorCode.allCases.count == apple.count)
    for (code, name, raw) in apple {
      #expect(code.name == name, "\(code)")
      #expect(AuthErrorCode(rawValue: raw) == code, "\(name)")
      #expect(LAError(code).errorCode == raw, "\(name)")
      #expect((LAError(code) as NSError).code == raw, "\(name)")
    }
  }

  @Test("an LAError's description is its code's sentence from the core's table, for every code")
  func descriptionsFromTable() {
    for code in LAError.Code.allCases {
      #expect(LAError(code).localizedDescription == code.localizedDescription, "\(code)")
      #expect(LAError(code).nsError.localizedDescription == code.localizedDescription, "\(code)")
      #expect(!code.localizedDescription.isEmpty && !code.message.isEmpty, "\(code)")
    }
    // Apple's wording for LAError, the core's for localauthctl: both are columns of the one table.
    #expect(LAError.Code.userCancel.localizedDescription == "Authentication was canceled by the user.")
    #expect(AuthErrorCode.userCancel.message == "Authentication was cancelled.")
    #expect(LAError.Code.notInteractive.localizedDescription == AuthErrorCode.notInteractive.message)
  }
}
