import ArgumentParser
import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

extension LocalAuthCtl {
  /// Sets or removes a user's passcode.
  struct Passcode: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Set or remove a user's passcode.", subcommands: [Set.self, Remove.self])

    /// Sets or replaces the passcode, from the terminal or from standard input.
    struct Set: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Set a user's passcode.",
        discussion: """
          At a terminal the passcode is typed twice with echo off; otherwise one line is read from standard \
          input. Counters and delays start over; the first authentication afterwards asks for the passcode \
          (it is required after every restart).
          """)

      @OptionGroup var common: CommonOptions
      @Argument(help: "The user.") var user: String

      func validate() throws { _ = try userName(user) }

      func run() throws {
        try reporting {
          let name = try userName(user)
          let context = try common.context()
          let passcode = try readNewPasscode()
          defer { passcode.wipe() }
          try context.admin.setPasscode(passcode, for: name)
          print("Passcode set for \(user).")
        }
      }

      /// Reads the new passcode: twice with echo off at a terminal, else one line of standard input.
      func readNewPasscode() throws -> SecretBytes {
        let terminal = TerminalPrompter(standardInputFallback: true)
        func read(_ prompt: String, missing: String) throws -> SecretBytes {
          do { return try terminal.secret(prompt) } catch {
            if case .prompt(.interrupted) = error { throw CommandFailure("Cancelled; nothing was changed.") }
            throw CommandFailure(missing)
          }
        }
        guard terminal.isInteractive else { return try read("", missing: "No passcode on standard input.") }
        let first = try read("New passcode for \(user): ", missing: "No passcode was entered.")
        let second: SecretBytes
        do { second = try read("Retype the new passcode: ", missing: "No passcode was entered.") } catch {
          first.wipe()
          throw error
        }
        defer { second.wipe() }
        guard constantTimeEquals(first.bytes, second.bytes) else {
          first.wipe()
          throw CommandFailure("The passcodes do not match; nothing was changed.")
        }
        return first
      }
    }

    /// Removes the passcode; nothing can authenticate the user until a new one is set.
    struct Remove: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Remove a user's passcode.",
        discussion: "Without a passcode, both policies fail with passcodeNotSet, as on Apple devices.")

      @OptionGroup var common: CommonOptions
      @Argument(help: "The user.") var user: String

      func validate() throws { _ = try userName(user) }

      func run() throws {
        try reporting {
          let name = try userName(user)
          try common.context().admin.removePasscode(for: name)
          print("Passcode removed for \(user).")
        }
      }
    }
  }
}
