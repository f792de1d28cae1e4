import LocalAuthCore
import Testing

/// The configuration file's syntax: `key = value` lines, `#` comments, blank lines, quotes, CRLF line ends.
@Suite("Options: configuration file lines")
struct ConfigFileTests {
  @Test func commentsAndBlankLinesAreDroppedAndKeysAndValuesTrimmed() throws {
    let text = "# pam_localauth\n\n   \n\ttimeout = 5 \nreason=Unlock sudo\n  debug\n#timeout=9\n"
    #expect(try OptionParser.fileLines(text) == ["timeout=5", "reason=Unlock sudo", "debug"])
  }

  @Test func windowsLineEndsAndTabsAreBlanks() throws {
    #expect(try OptionParser.fileLines("timeout\t=\t7\r\nsensor = faceid\r\n") == ["timeout=7", "sensor=faceid"])
  }

  @Test func quotesAroundAValueAreRemovedOnce() throws {
    let text = "fallback_title = \"\"\nreason = \"Unlock \"the\" vault\"\nfeature = \"vpn\nstate_dir=\"/x\""
    #expect(try OptionParser.fileLines(text) == ["fallback_title=", "reason=Unlock \"the\" vault", "feature=\"vpn", "state_dir=/x"])
  }

  @Test func onlyALeadingHashIsAComment() throws {
    #expect(try OptionParser.fileLines("reason = a # b\n # all of it\n") == ["reason=a # b"])
  }

  @Test func textOtherThanASCIIIsKeptAsWritten() throws {
    #expect(try OptionParser.fileLines("reason = Déverrouiller 🔐\nfallback_title=パスコード\n") == ["reason=Déverrouiller 🔐", "fallback_title=パスコード"])
  }

  @Test func theFirstEqualsSignSplitsKeyFromValue() throws {
    #expect(try OptionParser.fileLines("reason = a=b\n=5\n") == ["reason=a=b", "=5"])
  }

  @Test func tooLargeOrTooManyLinesIsRefused() {
    #expect(throws: ConfigError.self) { try OptionParser.fileLines(String(repeating: "x", count: OptionParser.maximumFileSize + 1)) }
    #expect(throws: ConfigError.self) { try OptionParser.fileLines(String(repeating: "debug\n", count: OptionParser.maximumEntries + 1)) }
  }

  @Test func aFileParsesIntoOptions() throws {
    let parsed = try OptionParser.parse(arguments: ["conf=/c"]) { _ in "timeout = 9\r\nreason = \"Touch to unlock\"\n" }
    #expect(parsed.options.evaluation.sensorTimeout == 9)
    #expect(parsed.options.reason == "Touch to unlock")
    #expect(parsed.warnings.isEmpty)
  }
}
