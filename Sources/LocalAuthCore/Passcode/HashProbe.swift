/// A hook told the yescrypt parameters of every hash computation, for timing-equivalence tests (debug builds only).
#if DEBUG
nonisolated(unsafe) package var passcodeHashProbe: ((_ parameters: String) -> Void)? = nil
#endif

/// Tells the probe about one computation with `setting` (`$y$<params>$<salt>…`); nothing in release builds.
@inline(__always)
func reportHashWork(_ setting: [CChar]) {
  #if DEBUG
  guard let probe = passcodeHashProbe else { return }
  let text = String(decoding: setting.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  probe(text.split(separator: "$", omittingEmptySubsequences: false).prefix(3).joined(separator: "$"))
  #endif
}

extension PasscodeHasher {
  /// Burns the work of one verification of `secret` for a user who does not exist or has no passcode, unless
  /// a real check would refuse `secret` before hashing (empty, too long, or holding a NUL): every path then
  /// spends the same yescrypt work on the same entry, so timing does not tell which users exist.
  package func burnEquivalentWork(for secret: SecretBytes) {
    guard !secret.isEmpty, secret.count <= SecretBytes.maximumLength, !secret.bytes.contains(0) else { return }
    burnEquivalentWork()
  }
}
