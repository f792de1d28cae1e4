import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealPAM {
  /// Apps link the helper's client statically, so an app can be newer than the helper installed where it runs
  /// (docs/HELPER.md, "Schema"): its client opens with the next older version the helper accepts.
  @Suite("An app newer than the installed helper", .enabled(if: AppDriver.available, "la-app or the helper is not built"))
  struct AppWireVersionTests {
    /// A helper of wire version 2, as an app of version 3 meets it: root's, set-user-ID, refusing any other
    /// version's opening before it reads anything else with `result` 04 07 (frame 1f 00 02 04 07) and exiting, as
    /// localauth-helper did up to version 2 (HelperWire, git 22c2e7f~1). A version 2 opening is left unread and
    /// served by the real helper, which accepts it (unless `refusingAll`). Each opening's version goes to `log`,
    /// one line each. The kernel ignores a script's set-user-ID bit (it runs as the user, which only the
    /// installation check sees); the helper it executes is set-user-ID root.
    static func olderHelperScript(helper: String, log: String, refusingAll: Bool) -> String {
      #"""
      #!/usr/bin/python3 -I
      import os, socket, sys, time
      channel = socket.fromfd(0, socket.AF_UNIX, socket.SOCK_STREAM)
      opening = b""
      for _ in range(100):
          opening = channel.recv(5, socket.MSG_PEEK)
          if len(opening) >= 5 or not opening:
              break
          time.sleep(0.05)
      version = int.from_bytes(opening[3:5], "big") if len(opening) == 5 and opening[:3] == b"\x04\x00\x02" else -1
      with open("\#(log)", "a") as record:
          record.write("%d\n" % version)
      if version == \#(refusingAll ? -2 : 2):
          channel.close()
          os.execv("\#(helper)", ["\#(helper)"])
      channel.recv(5)
      channel.sendall(bytes([0x1F, 0x00, 0x02, 0x04, 0x07]))
      sys.exit(0)
      """#
    }

    /// The older helper, installed beside a ready sandbox's own: what `body` runs la-app with.
    struct OlderHelper {
      let sandbox: Sandbox
      let app: AppDriver
      /// The older helper's path.
      let path: String
      /// Its log: the version of each opening it got.
      let log: String

      /// la-app `arguments` in a terminal, against the older helper.
      func run(_ arguments: [String]) throws -> AppDriver.Run {
        try app.inTerminal(arguments, environment: ["LOCALAUTH_HELPER": path])
      }

      /// The openings' versions so far.
      func openings() throws -> [String] {
        try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
      }
    }

    func withOlderHelper(refusingAll: Bool = false, _ body: (OlderHelper) throws -> Void) throws {
      try withSandbox { s in
        try Setups.ready(s)
        let world = try HelperWorld(s)
        let path = s.root + "/bin/localauth-helper-2"
        let log = s.root + "/openings.log"
        FileManager.default.createFile(atPath: log, contents: nil)
        #expect(chown(log, s.uid, world.gid) == 0 && chmod(log, 0o600) == 0)
        let source = s.root + "/localauth-helper-2.py"
        try Self.olderHelperScript(helper: world.helper, log: log, refusingAll: refusingAll)
          .write(toFile: source, atomically: true, encoding: .utf8)
        try Run.checked("/usr/bin/install", ["-o", "root", "-g", "root", "-m", "4755", source, path])
        try body(OlderHelper(sandbox: s, app: AppDriver(world: world), path: path, log: log))
      }
    }

    @Test("a version 3 app on a version 2 helper: refused once, then evaluates and reads its keychain through version 2")
    func olderHelper() throws {
      try withOlderHelper { older in
        // One process: the first session is refused in version 3 and opened again in 2; the context's later
        // calls (its evaluation serves two reads) and the second context's session open in 2 at once.
        #expect(try older.run(["add", "vault", "alice", "s3cret", "biometryAny"]).lines("status") == ["status 0"])
        #expect(try older.openings() == ["3", "2"])
        try older.sandbox.touch()
        let run = try older.run(["context-read", "vault", "alice"])
        #expect(run.lines("evaluate") == ["evaluate success"], "\(run.output)")
        #expect(run.lines("data") == ["data s3cret", "data s3cret"], "\(run.output)")
        let seen = try older.openings()
        #expect(
          seen.count >= 4 && Array(seen[2...3]) == ["3", "2"] && seen.dropFirst(4).allSatisfy { $0 == "2" }, "\(seen)")

        // The same app against the sandbox's own helper (version 3): opened once, in version 3, nothing refused.
        try older.sandbox.touch()
        let current = try older.app.inTerminal(["evaluate", "biometrics", "unlock the vault."])
        #expect(current.lines("evaluate") == ["evaluate success"], "\(current.output)")
        #expect(try older.openings() == seen)
      }
    }

    @Test("a helper that refuses every version: one try per version the client speaks, then systemCancel (-4)")
    func everyVersionRefused() throws {
      try withOlderHelper(refusingAll: true) { older in
        let run = try older.run(["evaluate", "biometrics", "unlock the vault."])
        #expect(run.lines("evaluate") == ["evaluate error -4"], "\(run.output)")
        #expect(try older.openings() == ["3", "2"])
      }
    }
  }
}
