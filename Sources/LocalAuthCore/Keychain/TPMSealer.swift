import CTPM

/// Why sealing or unsealing with the TPM failed.
package enum TPMError: Error, Equatable, Sendable {
  /// tpm2-tss (libtss2-esys.so.0, libtss2-tctildr.so.0, libtss2-mu.so.0) could not be loaded, or lacks a function.
  case libraryMissing
  /// No TPM answered at this TCTI (it could not be initialised, or its transport failed).
  case unreachable(tcti: String)
  /// The TPM, or tpm2-tss on its behalf, refused a command: the TSS2_RC (for a blob another TPM sealed, or one
  /// that was altered, TPM2_RC_INTEGRITY; for a secret over 128 bytes, TPM2_RC_SIZE).
  case refused(code: UInt32)
  /// The blob is not one `TPMSealer.seal` wrote: wrong magic, lengths or structures.
  case malformedBlob
}

/// Seals small secrets to one TPM 2.0 (tpm2-tss ESAPI, opened on first use): only that TPM can unseal them.
///
/// The secret becomes a sealed-data object under the owner hierarchy's ECC P-256 storage key, which is recreated
/// from the owner seed on every call (so nothing stays loaded in the TPM, and a reboot changes nothing); the blob
/// is "LAT1" followed by the object's marshalled TPM2B_PUBLIC and TPM2B_PRIVATE. No PCR policy and no
/// authorisation value: whoever can send commands to this TPM can unseal. The TCTI is a tpm2-tss loader string,
/// such as "device:/dev/tpmrm0" or "swtpm:host=127.0.0.1,port=2321". The C side is Sources/CTPM/shim.h.
package struct TPMSealer: Sendable {
  /// The tpm2-tss TCTI loader string that names the TPM.
  package let tcti: String

  /// A sealer for the TPM that `tcti` names; nothing is opened until the first call.
  package init(tcti: String) { self.tcti = tcti }

  /// The longest secret a TPM seals (MAX_SYM_DATA).
  package static let maximumSecretLength = Int(CTPM_MAX_SECRET)

  /// Seals `secret` (1 to `maximumSecretLength` bytes) with this TPM; the blob can be stored anywhere.
  package func seal(_ secret: [UInt8]) throws(TPMError) -> [UInt8] {
    var blob = [UInt8](repeating: 0, count: Int(CTPM_MAX_BLOB))
    var length = 0
    var code: UInt32 = 0
    let status = secret.withUnsafeBufferPointer { input in
      blob.withUnsafeMutableBufferPointer { output in
        ctpm_seal(tcti, input.baseAddress, input.count, output.baseAddress, output.count, &length, &code)
      }
    }
    guard status == CTPM_OK else { throw error(status, code) }
    blob.removeSubrange(length...)
    return blob
  }

  /// Unseals a blob `seal` wrote with this same TPM; the caller wipes the secret when done with it.
  package func unseal(_ blob: [UInt8]) throws(TPMError) -> [UInt8] {
    var secret = [UInt8](repeating: 0, count: Int(CTPM_MAX_SECRET))
    var length = 0
    var code: UInt32 = 0
    let status = blob.withUnsafeBufferPointer { input in
      secret.withUnsafeMutableBufferPointer { output in
        ctpm_unseal(tcti, input.baseAddress, input.count, output.baseAddress, output.count, &length, &code)
      }
    }
    guard status == CTPM_OK else { throw error(status, code) }
    // Shrinking in place keeps the bytes in this one buffer (no copy to wipe); the tail was never written.
    secret.removeSubrange(length...)
    return secret
  }

  /// The error for a ctpm_* status other than CTPM_OK.
  private func error(_ status: Int32, _ code: UInt32) -> TPMError {
    switch status {
    case CTPM_LIBRARY_MISSING: .libraryMissing
    case CTPM_UNREACHABLE: .unreachable(tcti: tcti)
    case CTPM_MALFORMED_BLOB: .malformedBlob
    default: .refused(code: code)  // CTPM_REFUSED; CTPM_BUFFER_TOO_SMALL cannot happen with these capacities
    }
  }
}
