import Foundation
import LocalAuthCore
import LocalAuthentication
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal pair: the test plays the user on the master side.
final class PseudoTerminal: @unchecked Sendable {
  let master: Int32
  let path: String
  /// The test's own handle on the terminal side, so the master never sees a hang-up between prompts.
  let keeper: Int32

  init() throws {
    // posix_openpt and friends need _XOPEN_SOURCE, which the Glibc module does not define: look them up.
    typealias OpenPT = @convention(c) (Int32) -> Int32
    typealias FDCall = @convention(c) (Int32) -> Int32
    typealias PTSName = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32
    let libc = dlopen(nil, RTLD_NOW)
    guard let openSymbol = dlsym(libc, "posix_openpt"), let grantSymbol = dlsym(libc, "grantpt"),
      let unlockSymbol = dlsym(libc, "unlockpt"), let nameSymbol = dlsym(libc, "ptsname_r")
    else { throw TerminalPrompter.Failure.noTerminal }
    master = unsafeBitCast(openSymbol, to: OpenPT.self)(O_RDWR | O_NOCTTY)
    var name = [CChar](repeating: 0, count: 128)
    guard master >= 0, unsafeBitCast(grantSymbol, to: FDCall.self)(master) == 0,
      unsafeBitCast(unlockSymbol, to: FDCall.self)(master) == 0,
      unsafeBitCast(nameSymbol, to: PTSName.self)(master, &name, name.count) == 0
    else { throw TerminalPrompter.Failure.noTerminal }
    path = String(decoding: name.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    keeper = open(path, O_RDWR | O_NOCTTY)
  }

  deinit {
    close(keeper)
    close(master)
  }

  /// Reads what the prompter wrote until `marker` appears (5 s at most).
  func read(until marker: String) -> String {
    var text = ""
    let limit = Date().addingTimeInterval(5)
    while !text.contains(marker) && Date() < limit {
      var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 100) > 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 256)
      let count = Glibc.read(master, &buffer, buffer.count)
      if count <= 0 { break }
      text += String(decoding: buffer[..<count], as: UTF8.self)
    }
    return text
  }

  /// Types `text` as the user.
  func type(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
  }
}

@Suite("TerminalPrompter", .serialized)
struct TerminalPrompterTests {
  @Test("the passcode is read with echo off, and info lines reach the terminal")
  func echoOff() async throws {
    let terminal = try PseudoTerminal()
    let prompter = TerminalPrompter(path: terminal.path)
    try prompter.info("Place your finger on the sensor.")
    #expect(terminal.read(until: "sensor.").contains("Place your finger on the sensor."))
    async let secret: String = Task.detached {
      let bytes = try prompter.secret("Enter Passcode: ")
      return String(decoding: bytes.bytes, as: UTF8.self)
    }.value
    #expect(terminal.read(until: "Enter Passcode: ").contains("Enter Passcode: "))
    terminal.type("4711\n")
    #expect(try await secret == "4711")
    let echoed = terminal.read(until: "\n")
    #expect(!echoed.contains("4711"))
  }

  @Test("end of input is reported as endOfInput (userCancel for a context)")
  func endOfInput() async throws {
    let terminal = try PseudoTerminal()
    let prompter = TerminalPrompter(path: terminal.path)
    let task = Task.detached { try prompter.secret("Enter Passcode: ") }
    _ = terminal.read(until: "Enter Passcode: ")
    terminal.type("\u{04}")
    await #expect(throws: TerminalPrompter.Failure.endOfInput) { _ = try await task.value }
  }
}
