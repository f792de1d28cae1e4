// Status codes: general, keychain and import/export (0 to -34018).
// Apple's status codes as SecBase.h declares them (Apple's Security, base/SecBase.h): each a global of the
// same name and value, so Apple code compiles and compares unchanged. Security re-exports them
// (Sources/Security/SecBase.swift); SecStatusTable holds the name and message of each.

/// No error.
public let errSecSuccess: Int32 = 0
/// Function or operation not implemented.
public let errSecUnimplemented: Int32 = -4
/// The disk is full.
public let errSecDiskFull: Int32 = -34
/// I/O error.
public let errSecIO: Int32 = -36
/// File already open with write permission.
public let errSecOpWr: Int32 = -49
/// One or more parameters passed to a function were not valid.
public let errSecParam: Int32 = -50
/// Write permissions error.
public let errSecWrPerm: Int32 = -61
/// Failed to allocate memory.
public let errSecAllocate: Int32 = -108
/// User canceled the operation.
public let errSecUserCanceled: Int32 = -128
/// Bad parameter or invalid state for operation.
public let errSecBadReq: Int32 = -909
/// Apple's status -2070 (SecBase.h gives it no message).
public let errSecInternalComponent: Int32 = -2070
/// Apple's status -4960 (SecBase.h gives it no message).
public let errSecCoreFoundationUnknown: Int32 = -4960
/// A required entitlement isn't present.
public let errSecMissingEntitlement: Int32 = -34018
/// Client is restricted and is not permitted to perform this operation.
public let errSecRestrictedAPI: Int32 = -34020
/// No keychain is available. You may need to restart your computer.
public let errSecNotAvailable: Int32 = -25291
/// This keychain cannot be modified.
public let errSecReadOnly: Int32 = -25292
/// The user name or passphrase you entered is not correct.
public let errSecAuthFailed: Int32 = -25293
/// The specified keychain could not be found.
public let errSecNoSuchKeychain: Int32 = -25294
/// The specified keychain is not a valid keychain file.
public let errSecInvalidKeychain: Int32 = -25295
/// A keychain with the same name already exists.
public let errSecDuplicateKeychain: Int32 = -25296
/// The specified callback function is already installed.
public let errSecDuplicateCallback: Int32 = -25297
/// The specified callback function is not valid.
public let errSecInvalidCallback: Int32 = -25298
/// The specified item already exists in the keychain.
public let errSecDuplicateItem: Int32 = -25299
/// The specified item could not be found in the keychain.
public let errSecItemNotFound: Int32 = -25300
/// There is not enough memory available to use the specified item.
public let errSecBufferTooSmall: Int32 = -25301
/// This item contains information which is too large or in a format that cannot be displayed.
public let errSecDataTooLarge: Int32 = -25302
/// The specified attribute does not exist.
public let errSecNoSuchAttr: Int32 = -25303
/// The specified item is no longer valid. It may have been deleted from the keychain.
public let errSecInvalidItemRef: Int32 = -25304
/// Unable to search the current keychain.
public let errSecInvalidSearchRef: Int32 = -25305
/// The specified item does not appear to be a valid keychain item.
public let errSecNoSuchClass: Int32 = -25306
/// A default keychain could not be found.
public let errSecNoDefaultKeychain: Int32 = -25307
/// User interaction is not allowed.
public let errSecInteractionNotAllowed: Int32 = -25308
/// The specified attribute could not be modified.
public let errSecReadOnlyAttr: Int32 = -25309
/// This keychain was created by a different version of the system software and cannot be opened.
public let errSecWrongSecVersion: Int32 = -25310
/// This item specifies a key size which is too large or too small.
public let errSecKeySizeNotAllowed: Int32 = -25311
/// A required component (data storage module) could not be loaded. You may need to restart your computer.
public let errSecNoStorageModule: Int32 = -25312
/// A required component (certificate module) could not be loaded. You may need to restart your computer.
public let errSecNoCertificateModule: Int32 = -25313
/// A required component (policy module) could not be loaded. You may need to restart your computer.
public let errSecNoPolicyModule: Int32 = -25314
/// User interaction is required, but is currently not allowed.
public let errSecInteractionRequired: Int32 = -25315
/// The contents of this item cannot be retrieved.
public let errSecDataNotAvailable: Int32 = -25316
/// The contents of this item cannot be modified.
public let errSecDataNotModifiable: Int32 = -25317
/// One or more certificates required to validate this certificate cannot be found.
public let errSecCreateChainFailed: Int32 = -25318
/// The specified preferences domain is not valid.
public let errSecInvalidPrefsDomain: Int32 = -25319
/// In dark wake, no UI possible.
public let errSecInDarkWake: Int32 = -25320
/// The specified access control list is not in standard (simple) form.
public let errSecACLNotSimple: Int32 = -25240
/// The specified policy cannot be found.
public let errSecPolicyNotFound: Int32 = -25241
/// The specified trust setting is invalid.
public let errSecInvalidTrustSetting: Int32 = -25242
/// The specified item has no access control.
public let errSecNoAccessForItem: Int32 = -25243
/// Invalid attempt to change the owner of this item.
public let errSecInvalidOwnerEdit: Int32 = -25244
/// No trust results are available.
public let errSecTrustNotAvailable: Int32 = -25245
/// Import/Export format unsupported.
public let errSecUnsupportedFormat: Int32 = -25256
/// Unknown format in import.
public let errSecUnknownFormat: Int32 = -25257
/// Key material must be wrapped for export.
public let errSecKeyIsSensitive: Int32 = -25258
/// An attempt was made to import multiple private keys.
public let errSecMultiplePrivKeys: Int32 = -25259
/// Passphrase is required for import/export.
public let errSecPassphraseRequired: Int32 = -25260
/// The password reference was invalid.
public let errSecInvalidPasswordRef: Int32 = -25261
/// The Trust Settings Record was corrupted.
public let errSecInvalidTrustSettings: Int32 = -25262
/// No Trust Settings were found.
public let errSecNoTrustSettings: Int32 = -25263
/// MAC verification failed during PKCS12 import (wrong password?)
public let errSecPkcs12VerifyFailure: Int32 = -25264
/// A certificate was not signed by its proposed parent.
public let errSecNotSigner: Int32 = -26267
/// Unable to decode the provided data.
public let errSecDecode: Int32 = -26275
/// The disk is full (Apple's deprecated spelling of errSecDiskFull).
@available(*, deprecated, renamed: "errSecDiskFull")
public let errSecDskFull: Int32 = errSecDiskFull
