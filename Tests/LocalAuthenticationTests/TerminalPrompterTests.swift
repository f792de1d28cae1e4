import Dispatch
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
    else { throw PromptError.noTerminal }
    master = unsafeBitCast(openSymbol, to: OpenPT.self)(O_RDWR | O_NOCTTY)
    var name = [CChar](repeating: 0, count: 128)
    guard master >= 0, unsafeBitCast(grantSymbol, to: FDCall.self)(master) == 0,
      unsafeBitCast(unlockSymbol, to: FDCall.self)(master) == 0,
      unsafeBitCast(nameSymbol, to: PTSName.self)(master, &name, name.count) == 0
    else { throw PromptError.noTerminal }
    path = String(decoding: name.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    keeper = open(path, O_RDWR | O_NOCTTY)
  }

  private var closed = false

  deinit {
    close(keeper)
    hangUp()
  }

  /// Closes the master side: the terminal side's reads end with an error.
  func hangUp() {
    guard !closed else { return }
    closed = true
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

/// Runs a blocking prompter call on a dispatch thread (never on the small cooperative pool) and hands back
/// its result with a bounded wait, so a lost keystroke fails the test instead of hanging it.
final class BackgroundCall<T>: @unchecked Sendable {
  private let done = DispatchSemaphore(value: 0)
  private var result: Result<T, any Error>?

  init(_ body: @escaping @Sendable () throws -> T) {
    DispatchQueue.global().async {
      self.result = Result { try body() }
      self.done.signal()
    }
  }

  func value(within seconds: Double = 5) throws -> T {
    guard done.wait(timeout: .now() + seconds) == .success, let result else { throw PromptError.io(ETIMEDOUT) }
    return try result.get()
  }
}

/// Collects an evaluation's reply with a bounded wait.
final class ReplyBox: @unchecked Sendable {
  private let done = DispatchSemaphore(value: 0)
  private var reply: (Bool, (any Error)?)?

  func set(_ success: Bool, _ error: (any Error)?) {
    reply = (success, error)
    done.signal()
  }

  func wait(_ seconds: Double = 5) -> (Bool, (any Error)?)? {
    done.wait(timeout: .now() + seconds) == .success ? reply : nil
  }
}

@Suite("TerminalPrompter", .serialized)
struct TerminalPrompterTests {
  @Test("the passcode is read with echo off, and info lines reach the terminal")
  func echoOff() throws {
    let terminal = try PseudoTerminal()
    let prompter = TerminalPrompter(path: terminal.path)
    try prompter.info("Place your finger on the sensor.")
    #expect(terminal.read(until: "sensor.").contains("Place your finger on the sensor."))
    let secret = BackgroundCall { String(decoding: try prompter.secret("Enter Passcode: ").bytes, as: UTF8.self) }
    // The prompt appears only once echo is off, so typing after it is safe.
    try #require(terminal.read(until: "Enter Passcode: ").contains("Enter Passcode: "))
    terminal.type("4721\u{7F}\u{7F}11\n")
    #expect(try secret.value() == "4711")
    let echoed = terminal.read(until: "\n")
    #expect(!echoed.contains("47"))
    #expect(echoed.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
  }

  @Test("end of input is reported as endOfInput (userCancel for a context)")
  func endOfInput() throws {
    let terminal = try PseudoTerminal()
    let prompter = TerminalPrompter(path: terminal.path)
    let call = BackgroundCall { try prompter.secret("Enter Passcode: ") }
    try #require(terminal.read(until: "Enter Passcode: ").contains("Enter Passcode: "))
    terminal.type("\u{04}")
    #expect(throws: LocalAuthError.prompt(.endOfInput)) { _ = try call.value() }
  }

  @Test("Ctrl-C at the passcode prompt is the Cancel button: a context reports userCancel, echo is restored")
  func controlC() throws {
    let terminal = try PseudoTerminal()
    let base = TestEnvironment(modality: nil)
    try base.setPasscode()
    var dependencies = base.dependencies
    dependencies.prompter = TerminalPrompter(path: terminal.path)
    let context = LAContext(
      configuration: LAContextConfiguration(dependencies: dependencies, settings: base.settings, user: base.user))
    let reply = ReplyBox()
    context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "unlock") { reply.set($0, $1) }
    let shown = terminal.read(until: "Enter Passcode: ")
    // Without the prompt, typing could be flushed; hang up instead so the read ends and the test fails.
    if shown.contains("Enter Passcode: ") { terminal.type("12\u{03}") } else { terminal.hangUp() }
    #expect(shown.contains("Enter Passcode: "))
    let (success, error) = try #require(reply.wait())
    #expect(!success)
    #expect(laCode(error) == .userCancel)
    var settings = termios()
    #expect(tcgetattr(terminal.keeper, &settings) == 0)
    #expect(settings.c_lflag & tcflag_t(ECHO) != 0)
    #expect(settings.c_lflag & tcflag_t(ISIG) != 0)
    #expect(settings.c_lflag & tcflag_t(ICANON) != 0)
  }
}
