// The C constants of Apple's LAPublicDefines.h, as Swift sees them on Apple platforms: integer macros import as
// `Int32` global variables (`var kLAErrorUserCancel: Int32 { get }`) and the string macro as `String`. Client
// code uses them as `switch Int32(error.code) { case kLAErrorUserCancel: … }` or
// `LAPolicy(rawValue: Int(kLAPolicyDeviceOwnerAuthentication))`. Each value is the raw value of the Swift case
// with the same meaning, so the two spellings can never disagree (RawValueTests checks every pair).
//
// Declared here: the names with a meaning on Linux. Left out: the watch, companion and wrist policies (3, 4, 5)
// and the companion types, as `LAPolicy` leaves out those policies (docs/LocalAuthentication.md, section 1);
// `kLACredentialSmartCardPIN` (no smart cards here); the macOS 10.10 options `kLAOptionUserFallback` and
// `kLAOptionAuthenticationReason` (no longer API); and the 10.12-only credential types (removed by Apple since).

// MARK: Error domain

/// The error domain of LocalAuthentication errors, "com.apple.LocalAuthentication" (`LAErrorDomain`).
public var kLAErrorDomain: String { LAErrorDomain }

// MARK: Policies

/// Biometry only (`LAPolicy.deviceOwnerAuthenticationWithBiometrics`, 1).
public var kLAPolicyDeviceOwnerAuthenticationWithBiometrics: Int32 {
  Int32(LAPolicy.deviceOwnerAuthenticationWithBiometrics.rawValue)
}
/// Biometry or the device passcode (`LAPolicy.deviceOwnerAuthentication`, 2).
public var kLAPolicyDeviceOwnerAuthentication: Int32 { Int32(LAPolicy.deviceOwnerAuthentication.rawValue) }

// MARK: Error codes

/// The user failed to provide valid credentials (`LAError.Code.authenticationFailed`).
public var kLAErrorAuthenticationFailed: Int32 { code(.authenticationFailed) }
/// The user pressed Cancel (`LAError.Code.userCancel`).
public var kLAErrorUserCancel: Int32 { code(.userCancel) }
/// The user pressed the fallback button (`LAError.Code.userFallback`).
public var kLAErrorUserFallback: Int32 { code(.userFallback) }
/// The system cancelled the evaluation (`LAError.Code.systemCancel`).
public var kLAErrorSystemCancel: Int32 { code(.systemCancel) }
/// No passcode is set (`LAError.Code.passcodeNotSet`).
public var kLAErrorPasscodeNotSet: Int32 { code(.passcodeNotSet) }
/// Biometry is not available (`LAError.Code.biometryNotAvailable`).
public var kLAErrorBiometryNotAvailable: Int32 { code(.biometryNotAvailable) }
/// No biometric identity is enrolled (`LAError.Code.biometryNotEnrolled`).
public var kLAErrorBiometryNotEnrolled: Int32 { code(.biometryNotEnrolled) }
/// Biometry is locked out (`LAError.Code.biometryLockout`).
public var kLAErrorBiometryLockout: Int32 { code(.biometryLockout) }
/// Apple's older name of `kLAErrorBiometryNotAvailable`; the header still defines it.
public var kLAErrorTouchIDNotAvailable: Int32 { kLAErrorBiometryNotAvailable }
/// Apple's older name of `kLAErrorBiometryNotEnrolled`; the header still defines it.
public var kLAErrorTouchIDNotEnrolled: Int32 { kLAErrorBiometryNotEnrolled }
/// Apple's older name of `kLAErrorBiometryLockout`; the header still defines it.
public var kLAErrorTouchIDLockout: Int32 { kLAErrorBiometryLockout }
/// The application cancelled the evaluation (`LAError.Code.appCancel`).
public var kLAErrorAppCancel: Int32 { code(.appCancel) }
/// The context was invalidated earlier (`LAError.Code.invalidContext`).
public var kLAErrorInvalidContext: Int32 { code(.invalidContext) }
/// No companion device is available (`LAError.Code.companionNotAvailable`); never produced on Linux.
public var kLAErrorCompanionNotAvailable: Int32 { code(.companionNotAvailable) }
/// Apple's older name of `kLAErrorCompanionNotAvailable`; never produced on Linux.
public var kLAErrorWatchNotAvailable: Int32 { kLAErrorCompanionNotAvailable }
/// No biometric accessory is paired (`LAError.Code.biometryNotPaired`); never produced on Linux.
public var kLAErrorBiometryNotPaired: Int32 { code(.biometryNotPaired) }
/// The biometric accessory is disconnected (`LAError.Code.biometryDisconnected`); never produced on Linux.
public var kLAErrorBiometryDisconnected: Int32 { code(.biometryDisconnected) }
/// Invalid dimensions for embedded UI (`LAError.Code.invalidDimensions`); never produced on Linux.
public var kLAErrorInvalidDimensions: Int32 { code(.invalidDimensions) }
/// UI would be needed but interaction is not allowed (`LAError.Code.notInteractive`).
public var kLAErrorNotInteractive: Int32 { code(.notInteractive) }

// MARK: Biometry types

/// No biometry (`LABiometryType.none`, 0).
public var kLABiometryTypeNone: Int32 { Int32(LABiometryType.none.rawValue) }
/// Touch ID (`LABiometryType.touchID`, 1 << 0).
public var kLABiometryTypeTouchID: Int32 { Int32(LABiometryType.touchID.rawValue) }
/// Face ID (`LABiometryType.faceID`, 1 << 1).
public var kLABiometryTypeFaceID: Int32 { Int32(LABiometryType.faceID.rawValue) }
/// Optic ID (`LABiometryType.opticID`, 1 << 2); never reported on Linux.
public var kLABiometryTypeOpticID: Int32 { Int32(LABiometryType.opticID.rawValue) }

// MARK: Credential types

/// An application-supplied password (`LACredentialType.applicationPassword`, 0).
public var kLACredentialTypeApplicationPassword: Int32 { Int32(LACredentialType.applicationPassword.rawValue) }

// MARK: Access control operations

/// Creating a keychain item (`LAAccessControlOperation.createItem`, 0).
public var kLAAccessControlOperationCreateItem: Int32 { 0 }
/// Using a keychain item (`LAAccessControlOperation.useItem`, 1).
public var kLAAccessControlOperationUseItem: Int32 { 1 }
/// Creating a key (`LAAccessControlOperation.createKey`, 2).
public var kLAAccessControlOperationCreateKey: Int32 { 2 }
/// Signing with a key (`LAAccessControlOperation.useKeySign`, 3).
public var kLAAccessControlOperationUseKeySign: Int32 { 3 }
/// Decrypting with a key (`LAAccessControlOperation.useKeyDecrypt`, 4).
public var kLAAccessControlOperationUseKeyDecrypt: Int32 { 4 }
/// A key exchange (`LAAccessControlOperation.useKeyKeyExchange`, 5).
public var kLAAccessControlOperationUseKeyKeyExchange: Int32 { 5 }

/// The `Int32` of an error code's raw value, as the C macro has it.
private func code(_ code: LAError.Code) -> Int32 { Int32(code.rawValue) }
