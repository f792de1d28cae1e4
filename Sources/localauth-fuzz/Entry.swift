#if canImport(Glibc)
import Glibc
#endif

// Two builds of one target. The normal build is a small test helper with hidden subcommands (writer,
// passcode, replay, mutate) that ReliabilityTests drive. The fuzzing build (`make fuzz`) compiles with
// `-D LOCALAUTH_LIBFUZZER -sanitize=fuzzer,address`: libFuzzer brings main() and calls
// LLVMFuzzerTestOneInput; LOCALAUTH_FUZZ_TARGET (options, state, helper or app) picks the target. There is no
// main.swift, so SwiftPM builds this target as a library-style module and only @main below makes a main().
// SwiftPM links executables with `--defsym main=localauth_fuzz_main`, so in the fuzzing build that symbol
// hands over to libFuzzer's driver (LLVMFuzzerRunDriver, a plain C function of libclang_rt.fuzzer).

#if LOCALAUTH_LIBFUZZER
@_silgen_name("LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The process entry in the fuzzing build: libFuzzer's driver with our callback.
@_cdecl("localauth_fuzz_main")
public func localauthFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  var count = argc
  var vector = argv
  return llvmFuzzerRunDriver(&count, &vector) { data, size in localauthFuzzTestOneInput(data, size) }
}

/// libFuzzer's entry: one input, through the target LOCALAUTH_FUZZ_TARGET names.
@_cdecl("LLVMFuzzerTestOneInput")
public func localauthFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  FuzzTarget.selected.run(bytes)
  return 0
}
#else
/// The test helper's entry point.
@main
struct LocalAuthFuzz {
  static func main() {
    exit(HelperCommand.run(Array(CommandLine.arguments.dropFirst())))
  }
}
#endif
