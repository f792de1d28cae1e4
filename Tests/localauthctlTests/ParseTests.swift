import ArgumentParser
import LocalAuthCore
import Testing

@testable import localauthctl

/// Parses `arguments` with the real root command and returns the subcommand, like argument-parser's AssertParse.
func parse<T: ParsableCommand>(_ type: T.Type, _ arguments: [String]) throws -> T {
  let command = try LocalAuthCtl.parseAsRoot(arguments)
  return try #require(command as? T, "parsed \(Swift.type(of: command)), expected \(T.self)")
}

/// Expects parsing to fail, and returns argument-parser's message for it.
func parseFailure(_ arguments: [String]) -> String? {
  do {
    _ = try LocalAuthCtl.parseAsRoot(arguments)
    return nil
  } catch {
    return LocalAuthCtl.message(for: error)
  }
}

@Suite struct ParseTests {
  @Test func enrollTakesUserFingerModalityAndStateDir() throws {
    let plain = try parse(LocalAuthCtl.Enroll.self, ["enroll", "alice", "right-index"])
    #expect(plain.user == "alice")
    #expect(plain.finger == "right-index")
    #expect(plain.modality == .touchID)
    #expect(plain.common.stateDir == nil)
    #expect(plain.common.conf == nil)

    let face = try parse(
      LocalAuthCtl.Enroll.self, ["enroll", "bob", "glasses", "--modality", "faceid", "--state-dir", "/tmp/s", "--conf", "/tmp/c"])
    #expect(face.modality == .faceID)
    #expect(face.common.stateDir == "/tmp/s")
    #expect(face.common.moduleArguments == ["conf=/tmp/c"])

    #expect(parseFailure(["enroll", "alice", "right-index", "--modality", "iris"])?.contains("iris") == true)
    #expect(parseFailure(["enroll", "alice", "right/index"])?.contains("is not acceptable") == true)
    #expect(parseFailure(["enroll", ".alice", "x"]) == "The user name is not acceptable: it starts with '.'.")
  }

  @Test func touchValidatesItsCombinations() throws {
    let touch = try parse(
      LocalAuthCtl.Touch.self, ["touch", "alice", "right-index", "--quality", "0.9", "--from", "mallory"])
    #expect(touch.finger == "right-index")
    #expect(touch.quality == 0.9)
    #expect(touch.from == "mallory")
    #expect(!touch.cancel && !touch.fallback)

    let cancel = try parse(LocalAuthCtl.Touch.self, ["touch", "alice", "--cancel"])
    #expect(cancel.cancel && cancel.finger == nil)
    #expect(try parse(LocalAuthCtl.Touch.self, ["touch", "alice", "--fallback"]).fallback)

    #expect(parseFailure(["touch", "alice"]) == "Name the finger, or use --cancel or --fallback.")
    #expect(parseFailure(["touch", "alice", "--cancel", "--fallback"]) == "Use either --cancel or --fallback, not both.")
    #expect(parseFailure(["touch", "alice", "x", "--cancel"]) == "--cancel and --fallback take no finger, --quality or --from.")
    #expect(parseFailure(["touch", "alice", "x", "--quality", "1.5"]) == "--quality must be between 0 and 1.")
  }

  @Test func evaluateTakesPolicyReasonFallbackAndTimeout() throws {
    let e = try parse(
      LocalAuthCtl.Evaluate.self,
      ["evaluate", "alice", "--policy", "biometrics", "--reason", "sudo", "--fallback-title", "", "--timeout", "10"])
    #expect(e.policy == .deviceOwnerAuthenticationWithBiometrics)
    #expect(e.reason == "sudo")
    #expect(e.fallbackTitle == "")
    #expect(e.timeout == 10)

    let full = try parse(LocalAuthCtl.Evaluate.self, ["evaluate", "alice", "--policy", "deviceOwnerAuthentication"])
    #expect(full.policy == .deviceOwnerAuthentication)
    #expect(full.reason == nil)

    #expect(parseFailure(["evaluate", "alice", "--reason", ""]) == "--reason must not be empty.")
    #expect(parseFailure(["evaluate", "alice", "--timeout", "0"]) == "--timeout must be from 1 to 600 seconds.")
    #expect(parseFailure(["evaluate", "alice", "--reuse-duration", "301"]) == "--reuse-duration must be from 0 to 300 seconds.")
    #expect(parseFailure(["evaluate", "alice", "--policy", "face"])?.contains("face") == true)
  }

  @Test func nestedCommandsParse() throws {
    #expect(try parse(LocalAuthCtl.Passcode.Set.self, ["passcode", "set", "alice"]).user == "alice")
    #expect(try parse(LocalAuthCtl.Passcode.Remove.self, ["passcode", "remove", "alice"]).user == "alice")
    let enable = try parse(LocalAuthCtl.Feature.Enable.self, ["feature", "enable", "alice", "sudo"])
    #expect(enable.feature == "sudo")
    #expect(try parse(LocalAuthCtl.Feature.Disable.self, ["feature", "disable", "alice", "sudo"]).feature == "sudo")
    #expect(try parse(LocalAuthCtl.Feature.List.self, ["feature", "list", "alice"]).user == "alice")
    #expect(try parse(LocalAuthCtl.Status.self, ["status", "alice", "--json"]).json)
    #expect(try !parse(LocalAuthCtl.Status.self, ["status", "alice"]).json)
    #expect(try parse(LocalAuthCtl.Status.self, ["status"]).user == nil)
    #expect(try parse(LocalAuthCtl.Reset.self, ["reset", "alice", "--state-dir", "/s"]).common.stateDir == "/s")
    #expect(try parse(LocalAuthCtl.Unenroll.self, ["unenroll", "alice", "x"]).finger == "x")
    #expect(try parse(LocalAuthCtl.List.self, ["list", "alice"]).user == "alice")
    #expect(parseFailure(["feature", "enable", "alice"]) != nil)
    #expect(parseFailure(["feature", "enable", "alice", "a b"])?.contains("is not acceptable") == true)
  }

  @Test func checkConfigCollectsModuleArguments() throws {
    let c = try parse(
      LocalAuthCtl.CheckConfig.self, ["check-config", "policy=biometrics", "debug", "--conf", "/etc/x.conf", "timeout=3"])
    #expect(c.arguments == ["policy=biometrics", "debug", "timeout=3"])
    #expect(c.common.moduleArguments == ["conf=/etc/x.conf"])
    #expect(try parse(LocalAuthCtl.CheckConfig.self, ["check-config"]).arguments == [])
  }

  @Test func relativePathsBecomeAbsolute() {
    #expect(absolutePath("/a/b") == "/a/b")
    #expect(absolutePath("state").hasPrefix("/"))
    #expect(absolutePath("state").hasSuffix("/state"))
  }
}
