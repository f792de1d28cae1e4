/// How a user's device key, the key every biometric and user-presence item is sealed with, is kept.
public enum DeviceKeyProtection: Equatable, Sendable, CustomStringConvertible {
  /// Sealed by the TPM reached through this TCTI: the disk alone cannot open it.
  case tpm(tcti: String)
  /// A root-only file in the state folder: root, or whoever reads the disk, can open it.
  case keyFile

  public var description: String {
    switch self {
    case .tpm(let tcti): "sealed by the TPM (\(tcti))"
    case .keyFile: "a root-only key file"
    }
  }
}

/// The user's device key: 32 random bytes in `device.key`, sealed by the TPM when one is configured and
/// reachable when the key is made, otherwise kept as they are in the root-only file.
struct DeviceKey {
  static let fileName = "device.key"
  static let header = "localauth-keychain-key 1"

  /// Reads the key's protection without opening it; nil when the user has no key yet.
  static func protection(in folder: KeychainFolder) throws(KeychainError) -> DeviceKeyProtection? {
    guard try folder.exists(), let bytes = try folder.read(fileName) else { return nil }
    guard let fields = parse(bytes) else { throw .storage(.corrupt(path: folder.path + "/" + fileName, reason: "it is not a device key")) }
    if fields["protection"] == "tpm", let tcti = fields["tcti"].flatMap({ hexDecode($0) }) {
      return .tpm(tcti: String(decoding: tcti, as: UTF8.self))
    }
    return .keyFile
  }

  /// The key, made now (under the folder's lock) when missing and `create`; nil when missing and not `create`.
  static func load(
    in folder: KeychainFolder, tcti: String?, create: Bool
  ) throws(KeychainError) -> [UInt8]? {
    let path = folder.path + "/" + fileName
    if let bytes = try folder.read(fileName) {
      guard let fields = parse(bytes) else { throw .storage(.corrupt(path: path, reason: "it is not a device key")) }
      switch fields["protection"] {
      case "file":
        guard let key = fields["key"].flatMap({ hexDecode($0) }), key.count == 32 else {
          throw .storage(.corrupt(path: path, reason: "its key is malformed"))
        }
        return key
      case "tpm":
        guard let tctiBytes = fields["tcti"].flatMap({ hexDecode($0) }), let blob = fields["blob"].flatMap({ hexDecode($0) })
        else { throw .storage(.corrupt(path: path, reason: "its sealed key is malformed")) }
        // The configured TPM is asked first (the administrator may have moved it, e.g. to tabrmd); without
        // `tpm=` the one the key was sealed with. Only the TPM that sealed the key can unseal it.
        let stored = tcti ?? String(decoding: tctiBytes, as: UTF8.self)
        let key: [UInt8]
        do {
          key = try TPMSealer(tcti: stored).unseal(blob)
        } catch {
          switch error {
          case .libraryMissing: throw .notAvailable("the TPM libraries (tpm2-tss) cannot be loaded")
          case .unreachable: throw .notAvailable("the TPM at \(stored) cannot be reached")
          case .refused, .malformedBlob: throw .authenticationFailed
          }
        }
        guard key.count == 32 else { throw .authenticationFailed }
        return key
      default:
        throw .storage(.corrupt(path: path, reason: "its protection is unknown"))
      }
    }
    guard create else { return nil }
    let key = try keychainCrypto { () throws(CryptoError) -> [UInt8] in try Crypto.randomBytes(32) }
    var lines = [header]
    if let tcti, isPresent(tcti), let blob = try? TPMSealer(tcti: tcti).seal(key) {
      lines += ["protection tpm", "tcti " + hexEncode(Array(tcti.utf8)), "blob " + hexEncode(blob)]
    } else {
      lines += ["protection file", "key " + hexEncode(key)]
    }
    try folder.write(fileName, Array((lines.joined(separator: "\n") + "\n").utf8))
    return key
  }

  /// False for a device TCTI whose node does not exist (no TPM), so that the TPM libraries are not even loaded.
  static func isPresent(_ tcti: String) -> Bool {
    guard tcti.hasPrefix("device:") else { return true }
    let node = String(tcti.dropFirst("device:".count))
    return FileSyscalls.exists(node.isEmpty ? "/dev/tpmrm0" : node)
  }

  /// The `key value` lines of a key file whose first line is `header`; nil when it is not one.
  static func parse(_ bytes: [UInt8], header: String = DeviceKey.header) -> [String: String]? {
    let lines = String(decoding: bytes, as: UTF8.self).fields(separatedBy: UInt8(ascii: "\n"))
    guard lines.first.map(String.init) == header else { return nil }
    var fields: [String: String] = [:]
    for line in lines.dropFirst() where !line.isEmpty {
      guard let space = line.firstIndex(ofByte: UInt8(ascii: " ")) else { return nil }
      fields[String(line[..<space])] = String(line[line.index(after: space)...])
    }
    return fields
  }
}
