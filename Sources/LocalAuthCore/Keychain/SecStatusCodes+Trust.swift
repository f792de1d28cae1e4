// Status codes: services, certificates, trust, OCSP and code signing (-67585 to -67699).
// Apple's status codes as SecBase.h declares them (Apple's Security, base/SecBase.h): each a global of the
// same name and value, so Apple code compiles and compares unchanged. Security re-exports them
// (Sources/Security/SecBase.swift); SecStatusTable holds the name and message of each.

/// The required service is not available.
public let errSecServiceNotAvailable: Int32 = -67585
/// The client ID is not correct.
public let errSecInsufficientClientID: Int32 = -67586
/// A device reset has occurred.
public let errSecDeviceReset: Int32 = -67587
/// A device failure has occurred.
public let errSecDeviceFailed: Int32 = -67588
/// Adding an application ACL subject failed.
public let errSecAppleAddAppACLSubject: Int32 = -67589
/// The public key is incomplete.
public let errSecApplePublicKeyIncomplete: Int32 = -67590
/// A signature mismatch has occurred.
public let errSecAppleSignatureMismatch: Int32 = -67591
/// The specified key has an invalid start date.
public let errSecAppleInvalidKeyStartDate: Int32 = -67592
/// The specified key has an invalid end date.
public let errSecAppleInvalidKeyEndDate: Int32 = -67593
/// A conversion error has occurred.
public let errSecConversionError: Int32 = -67594
/// A SSLv2 rollback error has occurred.
public let errSecAppleSSLv2Rollback: Int32 = -67595
/// The quota was exceeded.
public let errSecQuotaExceeded: Int32 = -67596
/// The file is too big.
public let errSecFileTooBig: Int32 = -67597
/// The specified database has an invalid blob.
public let errSecInvalidDatabaseBlob: Int32 = -67598
/// The specified database has an invalid key blob.
public let errSecInvalidKeyBlob: Int32 = -67599
/// The specified database has an incompatible blob.
public let errSecIncompatibleDatabaseBlob: Int32 = -67600
/// The specified database has an incompatible key blob.
public let errSecIncompatibleKeyBlob: Int32 = -67601
/// A host name mismatch has occurred.
public let errSecHostNameMismatch: Int32 = -67602
/// There is an unknown critical extension flag.
public let errSecUnknownCriticalExtensionFlag: Int32 = -67603
/// No basic constraints were found.
public let errSecNoBasicConstraints: Int32 = -67604
/// No basic CA constraints were found.
public let errSecNoBasicConstraintsCA: Int32 = -67605
/// The authority key ID is not valid.
public let errSecInvalidAuthorityKeyID: Int32 = -67606
/// The subject key ID is not valid.
public let errSecInvalidSubjectKeyID: Int32 = -67607
/// The key usage is not valid for the specified policy.
public let errSecInvalidKeyUsageForPolicy: Int32 = -67608
/// The extended key usage is not valid.
public let errSecInvalidExtendedKeyUsage: Int32 = -67609
/// The ID linkage is not valid.
public let errSecInvalidIDLinkage: Int32 = -67610
/// The path length constraint was exceeded.
public let errSecPathLengthConstraintExceeded: Int32 = -67611
/// The root or anchor certificate is not valid.
public let errSecInvalidRoot: Int32 = -67612
/// The CRL has expired.
public let errSecCRLExpired: Int32 = -67613
/// The CRL is not yet valid.
public let errSecCRLNotValidYet: Int32 = -67614
/// The CRL was not found.
public let errSecCRLNotFound: Int32 = -67615
/// The CRL server is down.
public let errSecCRLServerDown: Int32 = -67616
/// The CRL has a bad Uniform Resource Identifier.
public let errSecCRLBadURI: Int32 = -67617
/// An unknown certificate extension was encountered.
public let errSecUnknownCertExtension: Int32 = -67618
/// An unknown CRL extension was encountered.
public let errSecUnknownCRLExtension: Int32 = -67619
/// The CRL is not trusted.
public let errSecCRLNotTrusted: Int32 = -67620
/// The CRL policy failed.
public let errSecCRLPolicyFailed: Int32 = -67621
/// The issuing distribution point was not valid.
public let errSecIDPFailure: Int32 = -67622
/// An email address mismatch was encountered.
public let errSecSMIMEEmailAddressesNotFound: Int32 = -67623
/// The appropriate extended key usage for SMIME was not found.
public let errSecSMIMEBadExtendedKeyUsage: Int32 = -67624
/// The key usage is not compatible with SMIME.
public let errSecSMIMEBadKeyUsage: Int32 = -67625
/// The key usage extension is not marked as critical.
public let errSecSMIMEKeyUsageNotCritical: Int32 = -67626
/// No email address was found in the certificate.
public let errSecSMIMENoEmailAddress: Int32 = -67627
/// The subject alternative name extension is not marked as critical.
public let errSecSMIMESubjAltNameNotCritical: Int32 = -67628
/// The appropriate extended key usage for SSL was not found.
public let errSecSSLBadExtendedKeyUsage: Int32 = -67629
/// The OCSP response was incorrect or could not be parsed.
public let errSecOCSPBadResponse: Int32 = -67630
/// The OCSP request was incorrect or could not be parsed.
public let errSecOCSPBadRequest: Int32 = -67631
/// OCSP service is unavailable.
public let errSecOCSPUnavailable: Int32 = -67632
/// The OCSP server did not recognize this certificate.
public let errSecOCSPStatusUnrecognized: Int32 = -67633
/// An end-of-data was detected.
public let errSecEndOfData: Int32 = -67634
/// An incomplete certificate revocation check occurred.
public let errSecIncompleteCertRevocationCheck: Int32 = -67635
/// A network failure occurred.
public let errSecNetworkFailure: Int32 = -67636
/// The OCSP response was not trusted to a root or anchor certificate.
public let errSecOCSPNotTrustedToAnchor: Int32 = -67637
/// The record was modified.
public let errSecRecordModified: Int32 = -67638
/// The OCSP response had an invalid signature.
public let errSecOCSPSignatureError: Int32 = -67639
/// The OCSP response had no signer.
public let errSecOCSPNoSigner: Int32 = -67640
/// The OCSP responder was given a malformed request.
public let errSecOCSPResponderMalformedReq: Int32 = -67641
/// The OCSP responder encountered an internal error.
public let errSecOCSPResponderInternalError: Int32 = -67642
/// The OCSP responder is busy, try again later.
public let errSecOCSPResponderTryLater: Int32 = -67643
/// The OCSP responder requires a signature.
public let errSecOCSPResponderSignatureRequired: Int32 = -67644
/// The OCSP responder rejected this request as unauthorized.
public let errSecOCSPResponderUnauthorized: Int32 = -67645
/// The OCSP response nonce did not match the request.
public let errSecOCSPResponseNonceMismatch: Int32 = -67646
/// Code signing encountered an incorrect certificate chain length.
public let errSecCodeSigningBadCertChainLength: Int32 = -67647
/// Code signing found no basic constraints.
public let errSecCodeSigningNoBasicConstraints: Int32 = -67648
/// Code signing encountered an incorrect path length constraint.
public let errSecCodeSigningBadPathLengthConstraint: Int32 = -67649
/// Code signing found no extended key usage.
public let errSecCodeSigningNoExtendedKeyUsage: Int32 = -67650
/// Code signing indicated use of a development-only certificate.
public let errSecCodeSigningDevelopment: Int32 = -67651
/// Resource signing has encountered an incorrect certificate chain length.
public let errSecResourceSignBadCertChainLength: Int32 = -67652
/// Resource signing has encountered an error in the extended key usage.
public let errSecResourceSignBadExtKeyUsage: Int32 = -67653
/// The trust setting for this policy was set to Deny.
public let errSecTrustSettingDeny: Int32 = -67654
/// An invalid certificate subject name was encountered.
public let errSecInvalidSubjectName: Int32 = -67655
/// An unknown qualified certificate statement was encountered.
public let errSecUnknownQualifiedCertStatement: Int32 = -67656
/// Apple's status -67657 (SecBase.h gives it no message).
public let errSecMobileMeRequestQueued: Int32 = -67657
/// Apple's status -67658 (SecBase.h gives it no message).
public let errSecMobileMeRequestRedirected: Int32 = -67658
/// Apple's status -67659 (SecBase.h gives it no message).
public let errSecMobileMeServerError: Int32 = -67659
/// Apple's status -67660 (SecBase.h gives it no message).
public let errSecMobileMeServerNotAvailable: Int32 = -67660
/// Apple's status -67661 (SecBase.h gives it no message).
public let errSecMobileMeServerAlreadyExists: Int32 = -67661
/// Apple's status -67662 (SecBase.h gives it no message).
public let errSecMobileMeServerServiceErr: Int32 = -67662
/// Apple's status -67663 (SecBase.h gives it no message).
public let errSecMobileMeRequestAlreadyPending: Int32 = -67663
/// Apple's status -67664 (SecBase.h gives it no message).
public let errSecMobileMeNoRequestPending: Int32 = -67664
/// Apple's status -67665 (SecBase.h gives it no message).
public let errSecMobileMeCSRVerifyFailure: Int32 = -67665
/// Apple's status -67666 (SecBase.h gives it no message).
public let errSecMobileMeFailedConsistencyCheck: Int32 = -67666
/// A function was called without initializing CSSM.
public let errSecNotInitialized: Int32 = -67667
/// The CSSM handle does not match with the service type.
public let errSecInvalidHandleUsage: Int32 = -67668
/// A reference to the calling module was not found in the list of authorized callers.
public let errSecPVCReferentNotFound: Int32 = -67669
/// A function address was not within the verified module.
public let errSecFunctionIntegrityFail: Int32 = -67670
/// An internal error has occurred.
public let errSecInternalError: Int32 = -67671
/// A memory error has occurred.
public let errSecMemoryError: Int32 = -67672
/// Invalid data was encountered.
public let errSecInvalidData: Int32 = -67673
/// A Module Directory Service error has occurred.
public let errSecMDSError: Int32 = -67674
/// An invalid pointer was encountered.
public let errSecInvalidPointer: Int32 = -67675
/// Self-check has failed.
public let errSecSelfCheckFailed: Int32 = -67676
/// A function has failed.
public let errSecFunctionFailed: Int32 = -67677
/// A module manifest verification failure has occurred.
public let errSecModuleManifestVerifyFailed: Int32 = -67678
/// An invalid GUID was encountered.
public let errSecInvalidGUID: Int32 = -67679
/// An invalid handle was encountered.
public let errSecInvalidHandle: Int32 = -67680
/// An invalid DB list was encountered.
public let errSecInvalidDBList: Int32 = -67681
/// An invalid passthrough ID was encountered.
public let errSecInvalidPassthroughID: Int32 = -67682
/// An invalid network address was encountered.
public let errSecInvalidNetworkAddress: Int32 = -67683
/// The certificate revocation list is already signed.
public let errSecCRLAlreadySigned: Int32 = -67684
/// An invalid number of fields were encountered.
public let errSecInvalidNumberOfFields: Int32 = -67685
/// A verification failure occurred.
public let errSecVerificationFailure: Int32 = -67686
/// An unknown tag was encountered.
public let errSecUnknownTag: Int32 = -67687
/// An invalid signature was encountered.
public let errSecInvalidSignature: Int32 = -67688
/// An invalid name was encountered.
public let errSecInvalidName: Int32 = -67689
/// An invalid certificate reference was encountered.
public let errSecInvalidCertificateRef: Int32 = -67690
/// An invalid certificate group was encountered.
public let errSecInvalidCertificateGroup: Int32 = -67691
/// The specified tag was not found.
public let errSecTagNotFound: Int32 = -67692
/// The specified query was not valid.
public let errSecInvalidQuery: Int32 = -67693
/// An invalid value was detected.
public let errSecInvalidValue: Int32 = -67694
/// A callback has failed.
public let errSecCallbackFailed: Int32 = -67695
/// An ACL delete operation has failed.
public let errSecACLDeleteFailed: Int32 = -67696
/// An ACL replace operation has failed.
public let errSecACLReplaceFailed: Int32 = -67697
/// An ACL add operation has failed.
public let errSecACLAddFailed: Int32 = -67698
/// An ACL change operation has failed.
public let errSecACLChangeFailed: Int32 = -67699
