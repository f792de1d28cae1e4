// Apple's keychain keys and values, with Apple's own string values (so that dictionaries print alike).

/// The item class.
nonisolated(unsafe) public let kSecClass: CFString = "class"
/// A generic password, the only class this keychain holds.
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
/// The service.
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
/// The account.
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
/// The label.
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
/// The access group: a namespace for an app's items (docs/KEYCHAIN.md, "Access groups").
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
/// The accessibility class.
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
/// The access control (a SecAccessControl).
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
/// When the item was added.
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = "cdat"
/// When the item last changed.
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = "mdat"
/// Synchronisation to other devices (never, here).
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "sync"
/// The item's data.
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
/// Return the data.
nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
/// Return the attributes.
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "r_Attributes"
/// Return a reference (not supported: errSecParam).
nonisolated(unsafe) public let kSecReturnRef: CFString = "r_Ref"
/// Return a persistent reference (not supported: errSecParam).
nonisolated(unsafe) public let kSecReturnPersistentRef: CFString = "r_PersistentRef"
/// How many items to return.
nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
/// One item (the default).
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// Every matching item.
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"
/// The prompt's text (deprecated by Apple in favour of LAContext.localizedReason; the seeds use it).
nonisolated(unsafe) public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// An LAContext to evaluate with, or one already evaluated.
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
/// Whether authentication UI may be shown.
nonisolated(unsafe) public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// UI allowed (the default).
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// Skip items that need authentication (SecItemCopyMatching only).
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
/// Fail with errSecInteractionNotAllowed instead of asking (deprecated by Apple).
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"

/// Readable only while a passcode is set, never exported; deleted when the passcode is removed.
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// Readable while unlocked (the default).
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// Readable while unlocked, never exported.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// Readable after the first unlock of the boot.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Readable after the first unlock of the boot, never exported.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
