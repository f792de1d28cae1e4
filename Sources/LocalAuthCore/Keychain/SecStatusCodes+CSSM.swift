// Status codes: the CSSM layer (-67700 and below).
// Apple's status codes as SecBase.h declares them (Apple's Security, base/SecBase.h): each a global of the
// same name and value, so Apple code compiles and compares unchanged. Security re-exports them
// (Sources/Security/SecBase.swift); SecStatusTable holds the name and message of each.

/// Invalid access credentials were encountered.
public let errSecInvalidAccessCredentials: Int32 = -67700
/// An invalid record was encountered.
public let errSecInvalidRecord: Int32 = -67701
/// An invalid ACL was encountered.
public let errSecInvalidACL: Int32 = -67702
/// An invalid sample value was encountered.
public let errSecInvalidSampleValue: Int32 = -67703
/// An incompatible version was encountered.
public let errSecIncompatibleVersion: Int32 = -67704
/// The privilege was not granted.
public let errSecPrivilegeNotGranted: Int32 = -67705
/// An invalid scope was encountered.
public let errSecInvalidScope: Int32 = -67706
/// The PVC is already configured.
public let errSecPVCAlreadyConfigured: Int32 = -67707
/// An invalid PVC was encountered.
public let errSecInvalidPVC: Int32 = -67708
/// The EMM load has failed.
public let errSecEMMLoadFailed: Int32 = -67709
/// The EMM unload has failed.
public let errSecEMMUnloadFailed: Int32 = -67710
/// The add-in load operation has failed.
public let errSecAddinLoadFailed: Int32 = -67711
/// An invalid key was encountered.
public let errSecInvalidKeyRef: Int32 = -67712
/// An invalid key hierarchy was encountered.
public let errSecInvalidKeyHierarchy: Int32 = -67713
/// The add-in unload operation has failed.
public let errSecAddinUnloadFailed: Int32 = -67714
/// A library reference was not found.
public let errSecLibraryReferenceNotFound: Int32 = -67715
/// An invalid add-in function table was encountered.
public let errSecInvalidAddinFunctionTable: Int32 = -67716
/// An invalid service mask was encountered.
public let errSecInvalidServiceMask: Int32 = -67717
/// A module was not loaded.
public let errSecModuleNotLoaded: Int32 = -67718
/// An invalid subservice ID was encountered.
public let errSecInvalidSubServiceID: Int32 = -67719
/// An attribute was not in the context.
public let errSecAttributeNotInContext: Int32 = -67720
/// A module failed to initialize.
public let errSecModuleManagerInitializeFailed: Int32 = -67721
/// A module was not found.
public let errSecModuleManagerNotFound: Int32 = -67722
/// An event notification callback was not found.
public let errSecEventNotificationCallbackNotFound: Int32 = -67723
/// An input length error was encountered.
public let errSecInputLengthError: Int32 = -67724
/// An output length error was encountered.
public let errSecOutputLengthError: Int32 = -67725
/// The privilege is not supported.
public let errSecPrivilegeNotSupported: Int32 = -67726
/// A device error was encountered.
public let errSecDeviceError: Int32 = -67727
/// The CSP handle was busy.
public let errSecAttachHandleBusy: Int32 = -67728
/// You are not logged in.
public let errSecNotLoggedIn: Int32 = -67729
/// An algorithm mismatch was encountered.
public let errSecAlgorithmMismatch: Int32 = -67730
/// The key usage is incorrect.
public let errSecKeyUsageIncorrect: Int32 = -67731
/// The key blob type is incorrect.
public let errSecKeyBlobTypeIncorrect: Int32 = -67732
/// The key header is inconsistent.
public let errSecKeyHeaderInconsistent: Int32 = -67733
/// The key header format is not supported.
public let errSecUnsupportedKeyFormat: Int32 = -67734
/// The key size is not supported.
public let errSecUnsupportedKeySize: Int32 = -67735
/// The key usage mask is not valid.
public let errSecInvalidKeyUsageMask: Int32 = -67736
/// The key usage mask is not supported.
public let errSecUnsupportedKeyUsageMask: Int32 = -67737
/// The key attribute mask is not valid.
public let errSecInvalidKeyAttributeMask: Int32 = -67738
/// The key attribute mask is not supported.
public let errSecUnsupportedKeyAttributeMask: Int32 = -67739
/// The key label is not valid.
public let errSecInvalidKeyLabel: Int32 = -67740
/// The key label is not supported.
public let errSecUnsupportedKeyLabel: Int32 = -67741
/// The key format is not valid.
public let errSecInvalidKeyFormat: Int32 = -67742
/// The vector of buffers is not supported.
public let errSecUnsupportedVectorOfBuffers: Int32 = -67743
/// The input vector is not valid.
public let errSecInvalidInputVector: Int32 = -67744
/// The output vector is not valid.
public let errSecInvalidOutputVector: Int32 = -67745
/// An invalid context was encountered.
public let errSecInvalidContext: Int32 = -67746
/// An invalid algorithm was encountered.
public let errSecInvalidAlgorithm: Int32 = -67747
/// A key attribute was not valid.
public let errSecInvalidAttributeKey: Int32 = -67748
/// A key attribute was missing.
public let errSecMissingAttributeKey: Int32 = -67749
/// An init vector attribute was not valid.
public let errSecInvalidAttributeInitVector: Int32 = -67750
/// An init vector attribute was missing.
public let errSecMissingAttributeInitVector: Int32 = -67751
/// A salt attribute was not valid.
public let errSecInvalidAttributeSalt: Int32 = -67752
/// A salt attribute was missing.
public let errSecMissingAttributeSalt: Int32 = -67753
/// A padding attribute was not valid.
public let errSecInvalidAttributePadding: Int32 = -67754
/// A padding attribute was missing.
public let errSecMissingAttributePadding: Int32 = -67755
/// A random number attribute was not valid.
public let errSecInvalidAttributeRandom: Int32 = -67756
/// A random number attribute was missing.
public let errSecMissingAttributeRandom: Int32 = -67757
/// A seed attribute was not valid.
public let errSecInvalidAttributeSeed: Int32 = -67758
/// A seed attribute was missing.
public let errSecMissingAttributeSeed: Int32 = -67759
/// A passphrase attribute was not valid.
public let errSecInvalidAttributePassphrase: Int32 = -67760
/// A passphrase attribute was missing.
public let errSecMissingAttributePassphrase: Int32 = -67761
/// A key length attribute was not valid.
public let errSecInvalidAttributeKeyLength: Int32 = -67762
/// A key length attribute was missing.
public let errSecMissingAttributeKeyLength: Int32 = -67763
/// A block size attribute was not valid.
public let errSecInvalidAttributeBlockSize: Int32 = -67764
/// A block size attribute was missing.
public let errSecMissingAttributeBlockSize: Int32 = -67765
/// An output size attribute was not valid.
public let errSecInvalidAttributeOutputSize: Int32 = -67766
/// An output size attribute was missing.
public let errSecMissingAttributeOutputSize: Int32 = -67767
/// The number of rounds attribute was not valid.
public let errSecInvalidAttributeRounds: Int32 = -67768
/// The number of rounds attribute was missing.
public let errSecMissingAttributeRounds: Int32 = -67769
/// An algorithm parameters attribute was not valid.
public let errSecInvalidAlgorithmParms: Int32 = -67770
/// An algorithm parameters attribute was missing.
public let errSecMissingAlgorithmParms: Int32 = -67771
/// A label attribute was not valid.
public let errSecInvalidAttributeLabel: Int32 = -67772
/// A label attribute was missing.
public let errSecMissingAttributeLabel: Int32 = -67773
/// A key type attribute was not valid.
public let errSecInvalidAttributeKeyType: Int32 = -67774
/// A key type attribute was missing.
public let errSecMissingAttributeKeyType: Int32 = -67775
/// A mode attribute was not valid.
public let errSecInvalidAttributeMode: Int32 = -67776
/// A mode attribute was missing.
public let errSecMissingAttributeMode: Int32 = -67777
/// An effective bits attribute was not valid.
public let errSecInvalidAttributeEffectiveBits: Int32 = -67778
/// An effective bits attribute was missing.
public let errSecMissingAttributeEffectiveBits: Int32 = -67779
/// A start date attribute was not valid.
public let errSecInvalidAttributeStartDate: Int32 = -67780
/// A start date attribute was missing.
public let errSecMissingAttributeStartDate: Int32 = -67781
/// An end date attribute was not valid.
public let errSecInvalidAttributeEndDate: Int32 = -67782
/// An end date attribute was missing.
public let errSecMissingAttributeEndDate: Int32 = -67783
/// A version attribute was not valid.
public let errSecInvalidAttributeVersion: Int32 = -67784
/// A version attribute was missing.
public let errSecMissingAttributeVersion: Int32 = -67785
/// A prime attribute was not valid.
public let errSecInvalidAttributePrime: Int32 = -67786
/// A prime attribute was missing.
public let errSecMissingAttributePrime: Int32 = -67787
/// A base attribute was not valid.
public let errSecInvalidAttributeBase: Int32 = -67788
/// A base attribute was missing.
public let errSecMissingAttributeBase: Int32 = -67789
/// A subprime attribute was not valid.
public let errSecInvalidAttributeSubprime: Int32 = -67790
/// A subprime attribute was missing.
public let errSecMissingAttributeSubprime: Int32 = -67791
/// An iteration count attribute was not valid.
public let errSecInvalidAttributeIterationCount: Int32 = -67792
/// An iteration count attribute was missing.
public let errSecMissingAttributeIterationCount: Int32 = -67793
/// A database handle attribute was not valid.
public let errSecInvalidAttributeDLDBHandle: Int32 = -67794
/// A database handle attribute was missing.
public let errSecMissingAttributeDLDBHandle: Int32 = -67795
/// An access credentials attribute was not valid.
public let errSecInvalidAttributeAccessCredentials: Int32 = -67796
/// An access credentials attribute was missing.
public let errSecMissingAttributeAccessCredentials: Int32 = -67797
/// A public key format attribute was not valid.
public let errSecInvalidAttributePublicKeyFormat: Int32 = -67798
/// A public key format attribute was missing.
public let errSecMissingAttributePublicKeyFormat: Int32 = -67799
/// A private key format attribute was not valid.
public let errSecInvalidAttributePrivateKeyFormat: Int32 = -67800
/// A private key format attribute was missing.
public let errSecMissingAttributePrivateKeyFormat: Int32 = -67801
/// A symmetric key format attribute was not valid.
public let errSecInvalidAttributeSymmetricKeyFormat: Int32 = -67802
/// A symmetric key format attribute was missing.
public let errSecMissingAttributeSymmetricKeyFormat: Int32 = -67803
/// A wrapped key format attribute was not valid.
public let errSecInvalidAttributeWrappedKeyFormat: Int32 = -67804
/// A wrapped key format attribute was missing.
public let errSecMissingAttributeWrappedKeyFormat: Int32 = -67805
/// A staged operation is in progress.
public let errSecStagedOperationInProgress: Int32 = -67806
/// A staged operation was not started.
public let errSecStagedOperationNotStarted: Int32 = -67807
/// A cryptographic verification failure has occurred.
public let errSecVerifyFailed: Int32 = -67808
/// The query size is unknown.
public let errSecQuerySizeUnknown: Int32 = -67809
/// A block size mismatch occurred.
public let errSecBlockSizeMismatch: Int32 = -67810
/// The public key was inconsistent.
public let errSecPublicKeyInconsistent: Int32 = -67811
/// A device verification failure has occurred.
public let errSecDeviceVerifyFailed: Int32 = -67812
/// An invalid login name was detected.
public let errSecInvalidLoginName: Int32 = -67813
/// The user is already logged in.
public let errSecAlreadyLoggedIn: Int32 = -67814
/// An invalid digest algorithm was detected.
public let errSecInvalidDigestAlgorithm: Int32 = -67815
/// An invalid CRL group was detected.
public let errSecInvalidCRLGroup: Int32 = -67816
/// The certificate cannot operate.
public let errSecCertificateCannotOperate: Int32 = -67817
/// An expired certificate was detected.
public let errSecCertificateExpired: Int32 = -67818
/// The certificate is not yet valid.
public let errSecCertificateNotValidYet: Int32 = -67819
/// The certificate was revoked.
public let errSecCertificateRevoked: Int32 = -67820
/// The certificate was suspended.
public let errSecCertificateSuspended: Int32 = -67821
/// Insufficient credentials were detected.
public let errSecInsufficientCredentials: Int32 = -67822
/// The action was not valid.
public let errSecInvalidAction: Int32 = -67823
/// The authority was not valid.
public let errSecInvalidAuthority: Int32 = -67824
/// A verify action has failed.
public let errSecVerifyActionFailed: Int32 = -67825
/// The certificate authority was not valid.
public let errSecInvalidCertAuthority: Int32 = -67826
/// The CRL authority was not valid.
public let errSecInvaldCRLAuthority: Int32 = -67827
/// The CRL encoding was not valid.
public let errSecInvalidCRLEncoding: Int32 = -67828
/// The CRL type was not valid.
public let errSecInvalidCRLType: Int32 = -67829
/// The CRL was not valid.
public let errSecInvalidCRL: Int32 = -67830
/// The form type was not valid.
public let errSecInvalidFormType: Int32 = -67831
/// The ID was not valid.
public let errSecInvalidID: Int32 = -67832
/// The identifier was not valid.
public let errSecInvalidIdentifier: Int32 = -67833
/// The index was not valid.
public let errSecInvalidIndex: Int32 = -67834
/// The policy identifiers are not valid.
public let errSecInvalidPolicyIdentifiers: Int32 = -67835
/// The time specified was not valid.
public let errSecInvalidTimeString: Int32 = -67836
/// The trust policy reason was not valid.
public let errSecInvalidReason: Int32 = -67837
/// The request inputs are not valid.
public let errSecInvalidRequestInputs: Int32 = -67838
/// The response vector was not valid.
public let errSecInvalidResponseVector: Int32 = -67839
/// The stop-on policy was not valid.
public let errSecInvalidStopOnPolicy: Int32 = -67840
/// The tuple was not valid.
public let errSecInvalidTuple: Int32 = -67841
/// Multiple values are not supported.
public let errSecMultipleValuesUnsupported: Int32 = -67842
/// The certificate was not trusted.
public let errSecNotTrusted: Int32 = -67843
/// No default authority was detected.
public let errSecNoDefaultAuthority: Int32 = -67844
/// The trust policy had a rejected form.
public let errSecRejectedForm: Int32 = -67845
/// The request was lost.
public let errSecRequestLost: Int32 = -67846
/// The request was rejected.
public let errSecRequestRejected: Int32 = -67847
/// The address type is not supported.
public let errSecUnsupportedAddressType: Int32 = -67848
/// The service is not supported.
public let errSecUnsupportedService: Int32 = -67849
/// The tuple group was not valid.
public let errSecInvalidTupleGroup: Int32 = -67850
/// The base ACLs are not valid.
public let errSecInvalidBaseACLs: Int32 = -67851
/// The tuple credentials are not valid.
public let errSecInvalidTupleCredendtials: Int32 = -67852
/// The encoding was not valid.
public let errSecInvalidEncoding: Int32 = -67853
/// The validity period was not valid.
public let errSecInvalidValidityPeriod: Int32 = -67854
/// The requestor was not valid.
public let errSecInvalidRequestor: Int32 = -67855
/// The request descriptor was not valid.
public let errSecRequestDescriptor: Int32 = -67856
/// The bundle information was not valid.
public let errSecInvalidBundleInfo: Int32 = -67857
/// The CRL index was not valid.
public let errSecInvalidCRLIndex: Int32 = -67858
/// No field values were detected.
public let errSecNoFieldValues: Int32 = -67859
/// The field format is not supported.
public let errSecUnsupportedFieldFormat: Int32 = -67860
/// The index information is not supported.
public let errSecUnsupportedIndexInfo: Int32 = -67861
/// The locality is not supported.
public let errSecUnsupportedLocality: Int32 = -67862
/// The number of attributes is not supported.
public let errSecUnsupportedNumAttributes: Int32 = -67863
/// The number of indexes is not supported.
public let errSecUnsupportedNumIndexes: Int32 = -67864
/// The number of record types is not supported.
public let errSecUnsupportedNumRecordTypes: Int32 = -67865
/// Too many fields were specified.
public let errSecFieldSpecifiedMultiple: Int32 = -67866
/// The field format was incompatible.
public let errSecIncompatibleFieldFormat: Int32 = -67867
/// The parsing module was not valid.
public let errSecInvalidParsingModule: Int32 = -67868
/// The database is locked.
public let errSecDatabaseLocked: Int32 = -67869
/// The data store is open.
public let errSecDatastoreIsOpen: Int32 = -67870
/// A missing value was detected.
public let errSecMissingValue: Int32 = -67871
/// The query limits are not supported.
public let errSecUnsupportedQueryLimits: Int32 = -67872
/// The number of selection predicates is not supported.
public let errSecUnsupportedNumSelectionPreds: Int32 = -67873
/// The operator is not supported.
public let errSecUnsupportedOperator: Int32 = -67874
/// The database location is not valid.
public let errSecInvalidDBLocation: Int32 = -67875
/// The access request is not valid.
public let errSecInvalidAccessRequest: Int32 = -67876
/// The index information is not valid.
public let errSecInvalidIndexInfo: Int32 = -67877
/// The new owner is not valid.
public let errSecInvalidNewOwner: Int32 = -67878
/// The modify mode is not valid.
public let errSecInvalidModifyMode: Int32 = -67879
/// A required certificate extension is missing.
public let errSecMissingRequiredExtension: Int32 = -67880
/// The extended key usage extension was not marked critical.
public let errSecExtendedKeyUsageNotCritical: Int32 = -67881
/// A timestamp was expected but was not found.
public let errSecTimestampMissing: Int32 = -67882
/// The timestamp was not valid.
public let errSecTimestampInvalid: Int32 = -67883
/// The timestamp was not trusted.
public let errSecTimestampNotTrusted: Int32 = -67884
/// The timestamp service is not available.
public let errSecTimestampServiceNotAvailable: Int32 = -67885
/// An unrecognized or unsupported Algorithm Identifier in timestamp.
public let errSecTimestampBadAlg: Int32 = -67886
/// The timestamp transaction is not permitted or supported.
public let errSecTimestampBadRequest: Int32 = -67887
/// The timestamp data submitted has the wrong format.
public let errSecTimestampBadDataFormat: Int32 = -67888
/// The time source for the Timestamp Authority is not available.
public let errSecTimestampTimeNotAvailable: Int32 = -67889
/// The requested policy is not supported by the Timestamp Authority.
public let errSecTimestampUnacceptedPolicy: Int32 = -67890
/// The requested extension is not supported by the Timestamp Authority.
public let errSecTimestampUnacceptedExtension: Int32 = -67891
/// The additional information requested is not available.
public let errSecTimestampAddInfoNotAvailable: Int32 = -67892
/// The timestamp request cannot be handled due to system failure.
public let errSecTimestampSystemFailure: Int32 = -67893
/// A signing time was expected but was not found.
public let errSecSigningTimeMissing: Int32 = -67894
/// A timestamp transaction was rejected.
public let errSecTimestampRejection: Int32 = -67895
/// A timestamp transaction is waiting.
public let errSecTimestampWaiting: Int32 = -67896
/// A timestamp authority revocation warning was issued.
public let errSecTimestampRevocationWarning: Int32 = -67897
/// A timestamp authority revocation notification was issued.
public let errSecTimestampRevocationNotification: Int32 = -67898
/// The requested policy is not allowed for this certificate.
public let errSecCertificatePolicyNotAllowed: Int32 = -67899
/// The requested name is not allowed for this certificate.
public let errSecCertificateNameNotAllowed: Int32 = -67900
/// The validity period in the certificate exceeds the maximum allowed.
public let errSecCertificateValidityPeriodTooLong: Int32 = -67901
/// The verified certificate is a CA rather than an end-entity.
public let errSecCertificateIsCA: Int32 = -67902
