/// Why a test world or the benchmark could not be set up: one sentence naming the file and the reason. Setup
/// problems are reported (a skipped figure, a failed test's message), never a crash.
package struct TestSetupError: Error, CustomStringConvertible {
  /// One sentence naming what could not be made and why.
  package let description: String

  /// An error saying `description`.
  package init(_ description: String) { self.description = description }
}
