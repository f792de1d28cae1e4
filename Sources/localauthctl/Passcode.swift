import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
  /// Sets or removes a user's passcode.
  struct Passcode: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Set or remove a user's passcode.", subcommands: [Set.self])

    struct Set: ParsableCommand {
      static let configuration = CommandConfiguration(abstract: "Set a user's passcode (read from standard input).")
      @OptionGroup var common: CommonOptions
      @Argument(help: "The user.") var user: String

      func run() throws {
        let name = try UserName(user)
        guard let line = readLine(strippingNewline: true) else { throw ValidationError("No passcode on standard input.") }
        try Administration(store: common.store, clock: SystemClock()).setPasscode(SecretBytes(line), for: name)
        print("Passcode set for \(user).")
      }
    }
  }
}
