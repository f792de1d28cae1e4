import Foundation

// The CoreFoundation names Apple's keychain calls are written with. On Linux Foundation has no CoreFoundation
// types, so they are spelled here as the Swift types they bridge to, which lets `"x" as CFString`,
// `data as CFData`, `query as CFDictionary` and `kSecClass as String` compile unchanged.

/// A string (Apple's CFString, toll-free bridged to String).
public typealias CFString = String
/// Bytes (Apple's CFData, bridged to Data).
public typealias CFData = Data
/// A query or attribute dictionary (Apple's CFDictionary, bridged to [String: Any]).
public typealias CFDictionary = [String: Any]
/// Any CoreFoundation object.
public typealias CFTypeRef = AnyObject
/// An error object (Apple's CFError, bridged to NSError).
public typealias CFError = NSError
/// A status code (SecBase.h).
public typealias OSStatus = Int32

/// A memory allocator; only the default exists here.
public final class CFAllocator: Sendable {}

/// The default allocator (nil, as Apple's kCFAllocatorDefault is a NULL pointer).
public let kCFAllocatorDefault: CFAllocator? = nil

/// kCFBooleanTrue, for `query[kSecReturnData as String] = kCFBooleanTrue`.
public let kCFBooleanTrue: Bool = true
/// kCFBooleanFalse.
public let kCFBooleanFalse: Bool = false
