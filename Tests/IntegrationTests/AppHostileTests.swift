import Foundation
import LocalAuthCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealPAM {
  /// An app run by the user talks to the setuid localauth-helper as an attacker would (HostileAppClient, in Python):
  /// without the sender's credentials, with fields the protocol does not define, with a socket handed to another
  /// process, with a new session instead of an evaluated one, with huge and truncated frames, and with twenty
  /// sessions guessing the passcode at once. None of it gains a success, data, or more than five guesses.
  @Suite("localauth-helper against hostile apps", .enabled(if: Artifacts.helperAvailable, "needs build/localauth-helper (make helper) and mount namespaces"))
  struct AppHostileTests {
    typealias Key = AppCall.Key

    func prepare(_ s: Sandbox, _ setup: (Sandbox) throws -> Void) throws -> HostileAppClient {
      try setup(s)
      return try HostileAppClient(try HelperWorld(s))
    }

    /// evaluatePolicy as an app with its own UI calls it (the claim alone asks no finger: the client is no system
    /// program named in gui_services, so a finger needs the client in a terminal's foreground, `inTerminal`).
    static func evaluate(_ policy: AuthPolicy, extra: [(UInt8, [UInt8])] = []) -> String {
      var fields = AppFields()
      fields.set(Key.policy, byte: UInt8(policy.rawValue))
      fields.set(Key.reason, text: "open the notes")
      fields.set(Key.ownInterface, flag: true)
      for (key, value) in extra { fields.set(key, value) }
      return HostileAppClient.send(.call(AppCall(.evaluate, fields)))
    }

    static func canEvaluate(_ policy: AuthPolicy) -> String {
      var fields = AppFields()
      fields.set(Key.policy, byte: UInt8(policy.rawValue))
      return HostileAppClient.send(.call(AppCall(.canEvaluate, fields)))
    }

    /// SecItemAdd of a biometry-protected item "notes" holding "s3cret".
    static let addProtected: String = {
      var fields = AppFields()
      fields.set(Key.service, text: "notes")
      fields.set(Key.account, text: "me")
      fields.set(Key.accessFlags, WireIntegers.bytes(UInt64(KeychainAccessFlags.biometryAny.rawValue)))
      fields.set(Key.data, Array("s3cret".utf8))
      return HostileAppClient.send(.call(AppCall(.keychainAdd, fields)))
    }()

    /// SecItemCopyMatching of "notes" with its data.
    static let readProtected: String = {
      var fields = AppFields()
      fields.set(Key.service, text: "notes")
      fields.set(Key.returnData, flag: true)
      fields.set(Key.ownInterface, flag: true)
      return HostileAppClient.send(.call(AppCall(.keychainCopy, fields)))
    }()

    static let touchID: AppFields = {
      var fields = AppFields()
      fields.set(AppReply.Key.biometryType, byte: 1)
      return fields
    }()

    /// The data of the items a session received.
    static func data(_ session: HostileAppClient.Session) -> [String] {
      session.items.compactMap { $0.fields.bytes(Key.data).map { String(decoding: $0, as: UTF8.self) } }
    }

    /// The helper's syslog lines that contain `text`.
    static func lines(_ log: SyslogSocket, containing text: String) -> [String] {
      log.messages().filter { $0.contains("localauth-helper[") && $0.contains(text) }
    }

    @Test("the driver is sound: a wrong passcode fails and is counted, the right one succeeds, one session")
    func wellFormed() throws {
      try withSandbox { s in
        let driver = try prepare(s, Setups.passcodeOnly)
        let run = try driver.run([
          "hello", Self.canEvaluate(.deviceOwnerAuthentication), "reply",
          Self.evaluate(.deviceOwnerAuthentication), "answer:9999", "reply",
          Self.evaluate(.deviceOwnerAuthentication), "answer:1234", "reply",
        ])
        let session = run.only
        #expect(session.replies == [
          .done(Self.touchID), .evaluation(.failure(.authenticationFailed, .none), AppFields()),
          .evaluation(.success(.passcode), AppFields()),
        ], "\(run.run.stdout)")
        #expect(session.secrets == ["Enter Passcode: ", "Enter Passcode: "])
        #expect(session.exit == 0 && session.silent && !session.timedOut, "\(run.run.stdout)")
        #expect(try s.record()?.passcodeFailures == 0)
        #expect(try s.record()?.lastPasscodeSuccess != nil)
      }
    }

    @Test("no SO_PASSCRED on the helper's socket: the app hello is refused with a protocol fault, exit 1, nothing asked")
    func noCredentials() throws {
      try withSandbox { s in
        let driver = try prepare(s, Setups.passcodeOnly)
        let log = try SyslogSocket(folder: s.root + "/dev")
        let run = try driver.run(
          ["nocred", "hello", Self.evaluate(.deviceOwnerAuthentication), "answer:1234"], devLog: log)
        let session = run.only
        #expect(session.messages == [.reply(.fault(.protocolViolation))], "\(run.run.stdout)")
        #expect(session.exit == 1 && !session.timedOut, "\(run.run.stdout)")
        #expect(session.silent)
        let refused = Self.lines(log, containing: "whose socket does not pass credentials.")
        #expect(refused.count == 1 && refused[0].contains("localauth-helper refused an app (pid "), "\(log.messages())")
        let record = try #require(try s.record())
        #expect(record.passcodeFailures == 0 && record.lastPasscodeSuccess == nil, "nothing was evaluated")
      }
    }

    /// A uid with neither a passwd nor a group entry.
    static func uidWithoutPasswdEntry() throws -> UInt32 {
      try #require((UInt32(2_000_000_000)..<2_000_001_000).first { getpwuid($0) == nil && getgrgid($0) == nil })
    }

    @Test("a uid without a passwd entry: an app of version 3 is told unknownUser, one of version 2 stateUnreadable, a module unknownUser or (version 2) another user; the log names the cause")
    func noPasswdEntry() throws {
      try withSandbox { s in
        let driver = try prepare(s, Setups.passcodeOnly)
        let log = try SyslogSocket(folder: s.root + "/dev")
        let uid = try Self.uidWithoutPasswdEntry()
        let appVersion2 = HostileAppClient.hex(HelperMessage.appHello(version: 2).encode())
        for (opening, fault) in [("hello", HelperFault.unknownUser), ("send:" + appVersion2, .stateUnreadable)] {
          let run = try driver.run([opening, Self.canEvaluate(.deviceOwnerAuthentication), "reply"], devLog: log, uid: uid)
          #expect(run.only.messages == [.reply(.fault(fault))], "\(opening): \(run.run.stdout)")
          #expect(run.only.exit == 1 && run.only.silent && !run.only.timedOut, "\(opening): \(run.run.stdout)")
        }
        let apps = Self.lines(log, containing: "of uid \(uid), which has no usable passwd entry.")
        #expect(apps.count == 2 && apps.allSatisfy { $0.contains("localauth-helper refused an app (pid ") }, "\(log.messages())")

        // The module's path (a screen locker running as that uid), in version 3 and as a version 2 module.
        let module = try HelperDriver(driver.world)
        var hello = HelperHello(user: s.user, service: "driver", tty: "", remoteHost: "")
        hello.version = 2
        let moduleVersion2 = HostileAppClient.hex(HelperMessage.hello(hello).encode())
        for (steps, result) in [(["hello:" + s.user], HelperDriver.Result.unknownUser), (["raw:" + moduleVersion2], HelperDriver.Result.otherUser)] {
          let run = try module.run(steps, devLog: log, uid: uid)
          #expect(run.result == result, "\(steps): \(run.run.stdout)")
          #expect(run.exit == 1 && run.silent, "\(steps): \(run.run.stdout)")
        }
        let modules = Self.lines(
          log, containing: "refused to authenticate user \(s.user) for uid \(uid) (service driver), which has no usable passwd entry.")
        #expect(modules.count == 2, "\(log.messages())")
        let record = try #require(try s.record())
        #expect(record.passcodeFailures == 0 && record.lastPasscodeSuccess == nil, "nothing was evaluated")
      }
    }

    @Test("a field the call does not define (key 99, a 'user', a 'state_dir', a keychain field): protocol fault, the session ends")
    func unknownFields() throws {
      try withSandbox { s in
        let driver = try prepare(s, Setups.passcodeOnly)
        let log = try SyslogSocket(folder: s.root + "/dev")
        // Raw frames: AppFields.set would happily encode them; the helper must not take them.
        func raw(_ operation: UInt8, _ fields: [(UInt8, [UInt8])]) -> String {
          var payload = [operation]
          for (key, value) in fields { payload += [key, UInt8(value.count >> 8), UInt8(value.count & 0xff)] + value }
          return "send:" + HostileAppClient.hex([0x05, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)] + payload)
        }
        let reason = (Key.reason, Array("open".utf8))
        let cases: [(call: String, field: UInt8, why: String)] = [
          (raw(1, [(Key.policy, [2]), (99, [])]), 99, "key 99 on canEvaluate"),
          (raw(2, [(Key.policy, [2]), reason, (0, Array("root".utf8))]), 0, "a 'user' as key 0 on evaluate"),
          (raw(2, [(Key.policy, [2]), reason, (255, Array("/tmp/mine".utf8))]), 255, "a 'state_dir' as key 255 on evaluate"),
          (raw(2, [(Key.policy, [2]), reason, (Key.password, Array("1234".utf8))]), Key.password, "the password field on evaluate"),
        ]
        for (call, field, why) in cases {
          let run = try driver.run(
            ["hello", Self.canEvaluate(.deviceOwnerAuthentication), "reply", call, "ended:10"], devLog: log)
          let session = run.only
          #expect(session.replies == [.done(Self.touchID), .fault(.protocolViolation)], "\(why): \(run.run.stdout)")
          #expect(session.ended, "\(why): the helper ended the session itself")
          #expect(session.secrets.isEmpty && session.exit == 0 && session.silent && !session.timedOut, "\(why): \(run.run.stdout)")
          let lines = Self.lines(log, containing: "the other side sent an unknown field \(field).")
          #expect(lines.count == 1 && lines[0].contains("localauth-helper ended the session of app "), "\(why): \(lines)")
        }
        #expect(try s.record()?.passcodeFailures == 0)
      }
    }

    @Test("a socket used by another process (a forked child, a process it was passed to, one answering the prompt): refused, the session ends")
    func stolenSocket() throws {
      try withSandbox { s in
        let driver = try prepare(s, Setups.passcodeOnly)
        let log = try SyslogSocket(folder: s.root + "/dev")
        let call = String(Self.evaluate(.deviceOwnerAuthentication).dropFirst("send:".count))
        for how in ["fork", "pass"] {
          let run = try driver.run(
            ["hello", Self.canEvaluate(.deviceOwnerAuthentication), "reply", "\(how):" + call, "ended:10", "answer:1234"],
            devLog: log)
          let session = run.only
          let child = try #require(run.children.first, "\(how): \(run.run.stdout)")
          #expect(session.replies == [.done(Self.touchID), .fault(.protocolViolation)], "\(how): \(run.run.stdout)")
          #expect(session.secrets.isEmpty, "\(how): the child's call was never served")
          #expect(session.ended && session.exit == 0 && session.silent && !session.timedOut, "\(how): \(run.run.stdout)")
          let lines = Self.lines(log, containing: "the other side sent bytes from another process (pid \(child)).")
          #expect(lines.count == 1, "\(how): \(log.messages())")
        }
        // Another process answers the app's secret prompt, even with the right passcode: the session ends there,
        // and the app's next call is not served.
        let answer = HostileAppClient.hex(HelperMessage.answer(Array("1234".utf8)).encode())
        for bytes in [answer, "030000"] {
          let run = try driver.run(
            ["hello", Self.evaluate(.deviceOwnerAuthentication), "secret", "fork:" + bytes,
             Self.canEvaluate(.deviceOwnerAuthentication), "ended:10"], devLog: log)
          let session = run.only
          #expect(session.secrets == ["Enter Passcode: "], "\(bytes): \(run.run.stdout)")
          #expect(session.replies == [.fault(.protocolViolation)], "\(bytes): \(run.run.stdout)")
          #expect(session.ended && session.exit == 0 && !session.timedOut, "\(bytes): \(run.run.stdout)")
          let child = run.children.first ?? "?"
          #expect(Self.lines(log, containing: "bytes from another process (pid \(child)).").count == 1, "\(bytes)")
        }
        // The first message from another process: the helper answers it as a broken module caller, exit 1.
        let early = try driver.run(["fork:" + HostileAppClient.hex(HelperMessage.appHello(version: HelperWire.version).encode()), "ended:10"], devLog: log)
        #expect(early.only.results == [.fault(.protocolViolation)], "\(early.run.stdout)")
        #expect(early.only.exit == 1 && !early.only.timedOut)
        #expect(Self.lines(log, containing: "bytes from another process (pid \(early.children.first ?? "?"))").count == 1)
        let record = try #require(try s.record())
        #expect(record.passcodeFailures == 0 && record.lastPasscodeSuccess == nil, "nothing was evaluated")
      }
    }

    @Test("a new session holds no evaluation: a biometry item is read only after a finger, and a finger in session A does not open it in B")
    func forgedContextAndReplay() throws {
      try withSandbox { s in
        let driver = try prepare(s, Setups.ready)
        let added = try driver.run(["hello", Self.addProtected, "reply"], inTerminal: true).only
        #expect(added.replies == [.done(AppFields())], "\(added.frames)")
        #expect(added.items.count == 1 && Self.data(added).isEmpty, "an add returns the attributes only")

        // A fresh session reads at once: the finger is asked for; without one, no data.
        let forged = try driver.run(["hello", Self.readProtected, "reply"], inTerminal: true)
        #expect(forged.only.requests.count == 1 && !forged.only.timedOut, "\(forged.run.stdout)")
        #expect(Self.data(forged.only).isEmpty, "\(forged.run.stdout)")
        guard case .keychain = try #require(forged.only.replies.last) else {
          Issue.record("not a keychain error: \(forged.only.replies)")
          return
        }

        // Session A: the finger, then the read needs nothing more; session B: asked again, and nothing without it.
        // The fresh session's finger prompt ended a moment ago (RecentPrompt).
        RecentPrompt.waitOut()
        try s.touch()
        let a = try driver.run([
          "hello", Self.evaluate(.deviceOwnerAuthenticationWithBiometrics), "reply", Self.readProtected, "reply",
        ], inTerminal: true)
        guard a.only.replies.count == 2, case .evaluation(.success(.biometry), _) = a.only.replies[0] else {
          Issue.record("no match in session A: \(a.run.stdout)")
          return
        }
        #expect(a.only.requests.count == 1 && !a.only.timedOut, "one request, for the evaluation only: \(a.run.stdout)")
        #expect(Self.data(a.only) == ["s3cret"] && a.only.replies[1] == .done(AppFields()), "\(a.run.stdout)")
        RecentPrompt.waitOut()
        let b = try driver.run(["hello", Self.readProtected, "reply"], inTerminal: true)
        #expect(b.only.requests.count == 1 && !b.only.timedOut, "\(b.run.stdout)")
        #expect(Self.data(b.only).isEmpty, "\(b.run.stdout)")
        // With the finger, B reads it: the refusals above are the missing finger, not a broken item.
        RecentPrompt.waitOut()
        try s.touch()
        let c = try driver.run(["hello", Self.readProtected, "reply"], inTerminal: true)
        #expect(Self.data(c.only) == ["s3cret"], "\(c.run.stdout)")
      }
    }

    @Test("huge and truncated frames: refused within seconds, with a protocol fault or at the end of the stream")
    func hugeAndTruncated() throws {
      try withSandbox { s in
        let driver = try prepare(s, Setups.passcodeOnly)
        let moduleFault = HelperMessage.result(.fault(.protocolViolation))
        let appFault = HelperMessage.reply(.fault(.protocolViolation))
        // Before the hello the helper does not know an app is calling: it answers as to a broken module caller.
        let cases: [(steps: [String], messages: [HelperMessage], exit: Int, why: String)] = [
          (["send:05ffff", "pad:65535"], [moduleFault], 1, "a 64 KiB call instead of the hello"),
          (["send:04ffff", "pad:65535"], [moduleFault], 1, "a 64 KiB app hello"),
          (["send:0400", "shut"], [moduleFault], 1, "a truncated hello header"),
          (["send:04000f6c6f63616c", "shut"], [moduleFault], 1, "a truncated hello"),
          (["shut"], [moduleFault], 1, "an app that hangs up at once"),
          (["hello", "send:05ffff", "pad:65535"], [appFault], 0, "a 64 KiB call"),
          (["hello", "send:04ffff", "pad:65535"], [appFault], 0, "a 64 KiB hello in the session"),
          (["hello", "send:1e0401"], [appFault], 0, "a reply header over 1024 bytes"),
          (["hello", "send:050010020100", "shut"], [], 0, "a truncated call"),
          (["hello", "send:05", "shut"], [], 0, "a call's tag alone"),
          (["hello", "shut"], [], 0, "a session without a call"),
        ]
        for (steps, messages, exit, why) in cases {
          let run = try driver.run(steps + ["ended:15"])
          let session = run.only
          #expect(session.messages == messages, "\(why): \(run.run.stdout)")
          #expect(session.exit == exit, "\(why): \(run.run.stdout)")
          #expect(session.ended && !session.timedOut, "\(why): the helper ends by itself: \(run.run.stdout)")
          #expect((run.elapsed ?? 99) < 10, "\(why): \(run.elapsed ?? -1) s")
        }
        #expect(try s.record()?.passcodeFailures == 0)
      }
    }

    @Test("twenty sessions guessing at once: exactly five guesses are checked, then the 1-minute delay refuses every other")
    func parallelGuessing() throws {
      try withSandbox { s in
        let driver = try prepare(s, Setups.passcodeOnly)
        let count = 20
        // Distinct wrong passcodes: a repeated identical one would count once (docs/RULES.md, rule 5).
        let guesses = (0..<count).map { String(5000 + $0) }
        let began = Date()
        let call = HostileAppClient.send(.call(AppCall(.evaluate, {
          var fields = AppFields()
          fields.set(Key.policy, byte: UInt8(AuthPolicy.deviceOwnerAuthentication.rawValue))
          fields.set(Key.reason, text: "open the notes")
          fields.set(Key.ownInterface, flag: true)
          return fields
        }())))
        let run = try driver.run(
          ["parallel:\(count)", "call:" + call.dropFirst("send:".count), "answers:" + guesses.joined(separator: ",")],
          timeout: 240)
        #expect(run.sessions.count == count, "\(run.run.stdout)")
        // A guess was checked when the helper said it was wrong; the others were refused by the delay.
        let checked = run.sessions.filter { $0.errors.contains { $0.hasPrefix("Wrong passcode.") } }
        let delayed = run.sessions.filter { $0.errors.contains { $0.hasPrefix("Passcode entry is disabled after repeated failures.") } }
        #expect(checked.count == 5, "\(run.run.stdout)")
        #expect(delayed.count == count - 5, "\(run.run.stdout)")
        #expect(run.sessions.filter { !$0.secrets.isEmpty }.count >= 5, "every session asked before the fifth was counted")
        for (index, session) in run.sessions.enumerated() {
          guard session.replies.count == 1, case .evaluation(.failure(.authenticationFailed, let detail), _) = session.replies[0]
          else {
            Issue.record("session \(index): \(session.replies)")
            continue
          }
          if !session.errors.contains(where: { $0.hasPrefix("Wrong passcode.") }) {
            guard case .passcodeDelayed = detail else {
              Issue.record("session \(index) was neither checked nor delayed: \(detail)")
              continue
            }
          }
          #expect(session.exit == 0 && session.silent && !session.timedOut, "session \(index)")
        }
        // The state says the same: five failures, the next attempt a minute after the fifth.
        let status = try s.ctl("status", s.user, "--json").stdout
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any], "\(status)")
        #expect(object["passcodeFailures"] as? Int == 5, "\(status)")
        let next = try #require(object["passcodeNextAllowed"] as? Double, "\(status)")
        // The fifth failure came between `began` and now; its delay is one minute.
        #expect(next >= began.timeIntervalSince1970 + 59 && next <= Date().timeIntervalSince1970 + 61, "\(status)")
        // Even the right passcode waits: the next session is refused before it is asked.
        let right = try driver.run(["hello", Self.evaluate(.deviceOwnerAuthentication), "answer:1234"])
        #expect(right.only.secrets.isEmpty && !right.only.timedOut, "\(right.run.stdout)")
        guard case .evaluation(.failure(.authenticationFailed, .passcodeDelayed), _)? = right.only.replies.first else {
          Issue.record("the right passcode was not refused by the delay: \(right.only.replies)")
          return
        }
        #expect(try s.record()?.passcodeFailures == 5)
      }
    }
  }
}
