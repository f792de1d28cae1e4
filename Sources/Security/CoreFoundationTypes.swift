import Foundation

// The CoreFoundation names Apple's keychain calls are written with, as the Foundation classes Apple's CF types
// are toll-free bridged to (Linux's Foundation has no CoreFoundation types of its own). So the constants are
// objects, as on Apple's systems: `kSecClass as String`, `kSecClassGenericPassword as AnyObject`,
// `[NSObject: AnyObject]` and `[String: Any]` queries `as CFDictionary`, `[] as CFArray` and `kCFBooleanTrue!`
// compile and behave unchanged. The keychain calls read a dictionary once, at the boundary
// (KeychainCall+CoreFoundation.swift). Linux's Foundation marks NSString not Sendable, so each CFString constant
// is declared `nonisolated(unsafe) public let` (they are immutable, as Apple's C globals are).

/// A string (Apple's CFString, toll-free bridged to NSString and String).
public typealias CFString = NSString
/// Bytes (Apple's CFData, bridged to NSData and Data).
public typealias CFData = NSData
/// A query or attribute dictionary (Apple's CFDictionary, bridged to NSDictionary).
public typealias CFDictionary = NSDictionary
/// An array (Apple's CFArray, bridged to NSArray).
public typealias CFArray = NSArray
/// A boolean object (Apple's CFBoolean, bridged to NSNumber).
public typealias CFBoolean = NSNumber
/// A number object (Apple's CFNumber, bridged to NSNumber).
public typealias CFNumber = NSNumber
/// A date object (Apple's CFDate, bridged to NSDate).
public typealias CFDate = NSDate
/// Any CoreFoundation object.
public typealias CFTypeRef = AnyObject
/// An error object (Apple's CFError, bridged to NSError).
public typealias CFError = NSError
/// An error domain (Apple's CFErrorDomain).
public typealias CFErrorDomain = CFString
/// A count or an index (Apple's CFIndex).
public typealias CFIndex = Int
/// A bit field of options (Apple's CFOptionFlags).
public typealias CFOptionFlags = UInt
/// The identifier of a CoreFoundation type (Apple's CFTypeID).
public typealias CFTypeID = UInt
/// A status code (SecBase.h).
public typealias OSStatus = Int32

/// A memory allocator; only the default exists here.
public final class CFAllocator: Sendable {}

/// The default allocator (nil, as Apple's kCFAllocatorDefault is a NULL pointer).
public let kCFAllocatorDefault: CFAllocator? = nil

/// kCFBooleanTrue, for `query[kSecReturnData as String] = kCFBooleanTrue`; implicitly unwrapped, as Apple declares
/// it, so both `kCFBooleanTrue!` and `cond ? kCFBooleanTrue : kCFBooleanFalse` returned as a `CFBoolean` compile.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
/// kCFBooleanFalse.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

// The keys of a bundle's information dictionary (CFBundle.h), which keychain wrappers read from
// `Bundle.main.infoDictionary` to name their default service (Locksmith: `String(kCFBundleIdentifierKey)`).
/// The bundle's identifier ("CFBundleIdentifier").
nonisolated(unsafe) public let kCFBundleIdentifierKey: CFString! = "CFBundleIdentifier"
/// The bundle's name ("CFBundleName").
nonisolated(unsafe) public let kCFBundleNameKey: CFString! = "CFBundleName"
/// The bundle's version ("CFBundleVersion").
nonisolated(unsafe) public let kCFBundleVersionKey: CFString! = "CFBundleVersion"
/// The bundle's executable's name ("CFBundleExecutable").
nonisolated(unsafe) public let kCFBundleExecutableKey: CFString! = "CFBundleExecutable"
/// The information dictionary's format version ("CFBundleInfoDictionaryVersion").
nonisolated(unsafe) public let kCFBundleInfoDictionaryVersionKey: CFString! = "CFBundleInfoDictionaryVersion"
/// The bundle's development region ("CFBundleDevelopmentRegion").
nonisolated(unsafe) public let kCFBundleDevelopmentRegionKey: CFString! = "CFBundleDevelopmentRegion"
/// The bundle's localizations ("CFBundleLocalizations").
nonisolated(unsafe) public let kCFBundleLocalizationsKey: CFString! = "CFBundleLocalizations"

/// The error's code (Apple's CFErrorGetCode).
public func CFErrorGetCode(_ error: CFError) -> CFIndex { error.code }

/// The error's domain (Apple's CFErrorGetDomain).
public func CFErrorGetDomain(_ error: CFError) -> CFErrorDomain! { CFString(string: error.domain) }

/// The error's user-info dictionary (Apple's CFErrorCopyUserInfo).
public func CFErrorCopyUserInfo(_ error: CFError) -> CFDictionary! { NSDictionary(dictionary: error.userInfo) }

/// The error's localized description (Apple's CFErrorCopyDescription).
public func CFErrorCopyDescription(_ error: CFError) -> CFString! { CFString(string: error.localizedDescription) }

