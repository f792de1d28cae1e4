import Foundation

// A query arrives as Apple's CFDictionary, whatever Swift dictionary it was written as ([String: Any],
// [String: AnyObject], [NSObject: AnyObject], [String?: AnyObject]). It is read once, here, into a Swift
// dictionary: text keys, NSString values as String, NSData values as Data; anything else as it came.

extension KeychainCall {
  /// A call over `attributes` (Apple's dictionary, read once).
  init(_ attributes: CFDictionary) {
    self.init(swiftAttributes(attributes))
  }

  /// The value under `key`, as the query gave it (text as String, bytes as Data).
  subscript(_ key: CFString) -> Any? { attributes[key as String] }
}

/// A query dictionary's keys as strings and its bridged values as Swift values; a key that is not text
/// (never one of Apple's) is dropped.
func swiftAttributes(_ dictionary: CFDictionary) -> [String: Any] {
  var attributes: [String: Any] = [:]
  for (key, value) in dictionary {
    guard let key = key as? String else { continue }
    if let text = value as? String {
      attributes[key] = text
    } else if let data = value as? Data {
      attributes[key] = data
    } else {
      attributes[key] = value
    }
  }
  return attributes
}

// Inside this module the keychain's values are Swift strings and the constants Apple's CFStrings; these let the
// two meet without a cast at every use (`call.string(kSecMatchLimit) == kSecMatchLimitAll`,
// `attributes[kSecAttrService] = …` on a [String: Any]).

/// Whether a Swift string spells the constant.
func == (lhs: String?, rhs: CFString) -> Bool { lhs == (rhs as String) }

/// Whether a Swift string spells the constant.
func == (lhs: String, rhs: CFString) -> Bool { lhs == (rhs as String) }

/// The string, or the constant's text.
func ?? (lhs: String?, rhs: @autoclosure () -> CFString) -> String { lhs ?? (rhs() as String) }

extension Dictionary where Key == String {
  /// The value under a constant's text.
  subscript(_ key: CFString) -> Value? {
    get { self[key as String] }
    set { self[key as String] = newValue }
  }
}
