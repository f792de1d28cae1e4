// Apple's keychain keys and values, with Apple's own string values (so that dictionaries print alike).

/// The item class.
public let kSecClass: CFString = "class"
/// A generic password, the only class this keychain holds.
public let kSecClassGenericPassword: CFString = "genp"
/// The service.
public let kSecAttrService: CFString = "svce"
/// The account.
public let kSecAttrAccount: CFString = "acct"
/// The label.
public let kSecAttrLabel: CFString = "labl"
/// The access group: a namespace for an app's items (docs/KEYCHAIN.md, "Access groups").
public let kSecAttrAccessGroup: CFString = "agrp"
/// The accessibility class.
public let kSecAttrAccessible: CFString = "pdmn"
/// The access control (a SecAccessControl).
public let kSecAttrAccessControl: CFString = "accc"
/// When the item was added.
public let kSecAttrCreationDate: CFString = "cdat"
/// When the item last changed.
public let kSecAttrModificationDate: CFString = "mdat"
/// Synchronisation to other devices (never, here).
public let kSecAttrSynchronizable: CFString = "sync"
/// The item's data.
public let kSecValueData: CFString = "v_Data"
/// Return the data.
public let kSecReturnData: CFString = "r_Data"
/// Return the attributes.
public let kSecReturnAttributes: CFString = "r_Attributes"
/// Return a reference (not supported: errSecParam).
public let kSecReturnRef: CFString = "r_Ref"
/// Return a persistent reference (not supported: errSecParam).
public let kSecReturnPersistentRef: CFString = "r_PersistentRef"
/// How many items to return.
public let kSecMatchLimit: CFString = "m_Limit"
/// One item (the default).
public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// Every matching item.
public let kSecMatchLimitAll: CFString = "m_LimitAll"
/// The prompt's text (deprecated by Apple in favour of LAContext.localizedReason; the seeds use it).
public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// An LAContext to evaluate with, or one already evaluated.
public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
/// Whether authentication UI may be shown.
public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// UI allowed (the default).
public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// Skip items that need authentication (SecItemCopyMatching only).
public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
/// Fail with errSecInteractionNotAllowed instead of asking (deprecated by Apple).
public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"

/// Readable only while a passcode is set, never exported; deleted when the passcode is removed.
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// Readable while unlocked (the default).
public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// Readable while unlocked, never exported.
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// Readable after the first unlock of the boot.
public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Readable after the first unlock of the boot, never exported.
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
