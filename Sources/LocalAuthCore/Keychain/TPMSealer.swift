// TEMPORARY STUB (replaced by the TPM layer)
public enum TPMError: Error, Equatable, Sendable { case libraryMissing; case unreachable(tcti: String); case refused(code: UInt32); case malformedBlob }
public struct TPMSealer: Sendable {
  public let tcti: String
  public init(tcti: String) { self.tcti = tcti }
  public func seal(_ secret: [UInt8]) throws(TPMError) -> [UInt8] { throw .libraryMissing }
  public func unseal(_ blob: [UInt8]) throws(TPMError) -> [UInt8] { throw .libraryMissing }
}
