import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Drives the built binary through a pseudo-terminal: prompts appear, typed passcodes are never echoed.
final class PseudoTerminalSession {
  private let master: Int32
  private let process = Process()
  /// Everything the program wrote to the terminal so far.
  private(set) var transcript = ""

  /// Starts `localauthctl args…` with a pseudo-terminal as standard input, output and error.
  init(_ args: [String]) throws {
    var master: Int32 = -1
    var slave: Int32 = -1
    guard openpty(&master, &slave, nil, nil, nil) == 0 else { throw CocoaError(.fileReadUnknown) }
    self.master = master
    let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
    process.executableURL = URL(fileURLWithPath: CLIRunner.binary)
    process.arguments = args
    process.standardInput = handle
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    try handle.close()
  }

  deinit { close(master) }

  /// Reads until the transcript contains `text` or `seconds` pass; true when it appeared.
  @discardableResult
  func waitFor(_ text: String, seconds: Double = 20) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !transcript.contains(text) {
      let left = deadline.timeIntervalSinceNow
      guard left > 0, readSome(timeout: left) else { return transcript.contains(text) }
    }
    return true
  }

  /// Types `text` at the terminal.
  func type(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
  }

  /// Reads everything until the program exits; returns its exit status.
  func finish() -> Int32 {
    while readSome(timeout: 20) {}
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// Reads what is available within `timeout`; false at end of output (EIO once the child has gone) or timeout.
  private func readSome(timeout: Double) -> Bool {
    var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
    guard poll(&fds, 1, Int32(timeout * 1000)) > 0 else { return false }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = read(master, &buffer, buffer.count)
    guard n > 0 else { return false }
    transcript += String(decoding: buffer[0..<n], as: UTF8.self)
    return true
  }
}

@Suite(.serialized, .enabled(if: CLIRunner.isRoot, "needs root: state files must belong to root"))
struct TerminalTests {
  @Test func passcodeSetAtATerminalAsksTwiceWithEchoOff() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    let session = try PseudoTerminalSession(["passcode", "set", "alice", "--state-dir", cli.stateDir])
    #expect(session.waitFor("New passcode for alice: "))
    session.type("s3cret-42\n")
    #expect(session.waitFor("Retype the new passcode: "))
    session.type("s3cret-42\n")
    #expect(session.finish() == 0)
    #expect(session.transcript.contains("Passcode set for alice."))
    #expect(!session.transcript.contains("s3cret"))

    let evaluate = try cli.run(["evaluate", "alice", "--reason", "check"], input: "s3cret-42\n")
    #expect(evaluate.status == 0)
  }

  @Test func mismatchedConfirmationChangesNothing() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    let session = try PseudoTerminalSession(["passcode", "set", "alice", "--state-dir", cli.stateDir])
    #expect(session.waitFor("New passcode for alice: "))
    session.type("first-one\n")
    #expect(session.waitFor("Retype the new passcode: "))
    session.type("other-one\n")
    #expect(session.finish() == 1)
    #expect(session.transcript.contains("Error: The passcodes do not match; nothing was changed."))
    #expect(try cli.statusJSON("alice")["passcodeSet"] as? Bool == false)
  }

  @Test func evaluateAtATerminalReadsThePasscodeWithEchoOff() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    #expect(try cli.run(["passcode", "set", "alice"], input: "7777\n").status == 0)
    let session = try PseudoTerminalSession(
      ["evaluate", "alice", "--reason", "open the vault", "--fallback-title", "Vault Passcode", "--state-dir", cli.stateDir])
    #expect(session.waitFor("Vault Passcode: "))
    session.type("7777\n")
    #expect(session.finish() == 0)
    #expect(session.transcript.contains("Authenticated alice by passcode."))
    #expect(!session.transcript.contains("7777"))
  }
}
