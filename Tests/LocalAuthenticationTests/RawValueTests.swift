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

  @Test("every core AuthErrorCode maps 1:1 to the LAError.Code with the same raw value")
  func coreMapping() {
    for core in AuthErrorCode.allCases {
      #expect(ErrorMapping.code(core).rawValue == core.rawValue)
    }
    #expect(Set(AuthErrorCode.allCases.map { ErrorMapping.code($0) }).count == AuthErrorCode.allCases.count)
  }
}
