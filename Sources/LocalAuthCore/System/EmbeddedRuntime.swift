#if hasFeature(Embedded)
import CSyscalls

/// The C-locale `strtod` that `Double(String)` calls; the full runtime provides it, Embedded Swift does not.
/// The number is read in the C locale: a PAM application may run under one whose decimal separator is a comma.
@_cdecl("_swift_stdlib_strtod_clocale")
func swiftStdlibStrtodCLocale(_ text: UnsafePointer<CChar>, _ result: UnsafeMutablePointer<Double>) -> UnsafePointer<CChar>? {
  let numeric = newlocale(LC_NUMERIC_MASK, "C", nil)
  let previous = numeric.map { uselocale($0) }
  defer {
    if let previous { uselocale(previous) }
    if let numeric { freelocale(numeric) }
  }
  var end: UnsafeMutablePointer<CChar>?
  result.pointee = strtod(text, &end)
  return end.map { UnsafePointer($0) }
}
#endif
