import ArgumentParser
import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// A failure reported as one sentence on standard error (argument-parser prints "Error: " before it, exit 1).
struct CommandFailure: Error, CustomStringConvertible {
  /// The sentence.
  var description: String

  /// Creates a failure with its sentence.
  init(_ description: String) { self.description = description }
}

/// Writes one line to standard error.
func printError(_ line: String) {
  var text = line + "\n"
  text.withUTF8 { buffer in
    guard let base = buffer.baseAddress else { return }
    var offset = 0
    while offset < buffer.count {
      let n = write(2, base + offset, buffer.count - offset)
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return }
      offset += n
    }
  }
}

/// The one sentence for an error from the core or the terminal.
func explain(_ error: Error) -> String {
  switch error {
  case let error as CommandFailure: error.description
  case let error as LocalAuthError: explain(core: error)
  case let error as StateError: error.description
  case let error as AdministrationError: error.description
  case let error as ConfigError: error.description
  case let error as PasscodeError: AdministrationError.passcode(error).description
  default: "\(error)"
  }
}

/// The one sentence for an error the core threw.
func explain(core error: LocalAuthError) -> String {
  switch error {
  case .prompt(.conversationFailed), .prompt(.noTerminal), .prompt(.endOfInput):
    "No answer could be read from the terminal or standard input."
  case .prompt(.conversationAgain): "The terminal asked to be called again later."
  case .usage(.emptyReason): "The reason must not be empty."
  default: error.description
  }
}

/// Runs a command's work, turning core errors into one-sentence failures and passing argument-parser's own through.
func reporting<T>(_ body: () throws -> T) throws -> T {
  do {
    return try body()
  } catch let error as ExitCode {
    throw error
  } catch let error as ValidationError {
    throw error
  } catch let error as CleanExit {
    throw error
  } catch {
    throw CommandFailure(explain(error))
  }
}

/// Parses a user name, or fails with the core's sentence.
func userName(_ raw: String) throws -> UserName {
  do { return try UserName(raw) } catch { throw ValidationError(error.description) }
}
