import Glibc
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// Unsafe owners, modes, symbolic links and user names: a StateError naming the file and why, and nothing changed.
@Suite(.serialized)
struct TamperingTests {
  /// A state folder with one user record and its lock file, as a first successful write leaves it.
  static func makeState() throws -> (TemporaryFolder, FileStateStore, UserName) {
    let folder = TemporaryFolder("tamper")
    let store = FileStateStore(root: folder.state)
    let user = try UserName("alice")
    try store.update(user) { record in record.passcodeFailures = 3 }
    return (folder, store, user)
  }

  /// One way to tamper with the folder: what to do, which path the error must name, and words of its reason.
  struct Tampering: CustomStringConvertible, Sendable {
    let description: String
    let apply: @Sendable (String) -> Void
    let path: @Sendable (String) -> String
    let reason: String
  }

  static let cases: [Tampering] = [
    Tampering(description: "state folder owned by nobody", apply: { _ = chown($0, nobodyUID, 0) }, path: { $0 }, reason: "owned by uid"),
    Tampering(description: "state folder group-writable", apply: { _ = chmod($0, 0o770) }, path: { $0 }, reason: "writable by group or others"),
    Tampering(description: "users folder world-writable", apply: { _ = chmod($0 + "/users", 0o703) }, path: { $0 + "/users" }, reason: "writable by group or others"),
    Tampering(description: "users folder owned by nobody", apply: { _ = chown($0 + "/users", nobodyUID, 0) }, path: { $0 + "/users" }, reason: "owned by uid"),
    Tampering(
      description: "users folder replaced by a symbolic link",
      apply: { root in
        _ = rename(root + "/users", root + "/real-users")
        _ = symlink(root + "/real-users", root + "/users")
      }, path: { $0 + "/users" }, reason: "symbolic link"),
    Tampering(description: "record owned by nobody", apply: { _ = chown($0 + "/users/alice", nobodyUID, 0) }, path: { $0 + "/users/alice" }, reason: "owned by uid"),
    Tampering(description: "record group-writable", apply: { _ = chmod($0 + "/users/alice", 0o620) }, path: { $0 + "/users/alice" }, reason: "writable by group or others"),
    Tampering(description: "record world-writable", apply: { _ = chmod($0 + "/users/alice", 0o602) }, path: { $0 + "/users/alice" }, reason: "writable by group or others"),
    Tampering(
      description: "record replaced by a symbolic link",
      apply: { root in
        _ = rename(root + "/users/alice", root + "/alice-elsewhere")
        _ = symlink(root + "/alice-elsewhere", root + "/users/alice")
      }, path: { $0 + "/users/alice" }, reason: "symbolic link"),
    Tampering(
      description: "record replaced by a folder",
      apply: { root in
        _ = unlink(root + "/users/alice")
        _ = mkdir(root + "/users/alice", 0o700)
      }, path: { $0 + "/users/alice" }, reason: "not a regular file"),
    Tampering(
      description: "record replaced by a FIFO",
      apply: { root in
        _ = unlink(root + "/users/alice")
        _ = mkfifo(root + "/users/alice", 0o600)
      }, path: { $0 + "/users/alice" }, reason: "not a regular file"),
  ]

  /// Tampering with the lock side, which only update() touches.
  static let lockCases: [Tampering] = [
    Tampering(
      description: "locks folder replaced by a symbolic link",
      apply: { root in
        _ = rename(root + "/locks", root + "/real-locks")
        _ = symlink(root + "/real-locks", root + "/locks")
      }, path: { $0 + "/locks" }, reason: "symbolic link"),
    Tampering(description: "locks folder group-writable", apply: { _ = chmod($0 + "/locks", 0o770) }, path: { $0 + "/locks" }, reason: "writable by group or others"),
    Tampering(
      description: "lock file replaced by a symbolic link",
      apply: { root in
        _ = unlink(root + "/locks/alice")
        _ = symlink("/etc/passwd", root + "/locks/alice")
      }, path: { $0 + "/locks/alice" }, reason: "symbolic link"),
    Tampering(description: "lock file owned by nobody", apply: { _ = chown($0 + "/locks/alice", nobodyUID, 0) }, path: { $0 + "/locks/alice" }, reason: "owned by uid"),
  ]

  /// Checks that `error` is a StateError naming `path` with `reason` in its text.
  static func expectNames(_ error: any Error, path: String, reason: String, _ label: String) {
    guard let error = stateError(error) else {
      Issue.record("\(label): not a StateError: \(error)")
      return
    }
    guard case .insecure(let named, let why) = error else {
      Issue.record("\(label): expected .insecure, got \(error)")
      return
    }
    #expect(named == path, "\(label)")
    #expect(why.contains(reason), "\(label): \(why)")
    #expect(error.description.contains(path) && error.description.contains(reason), "\(label): \(error.description)")
  }

  @Test(arguments: TamperingTests.cases + TamperingTests.lockCases)
  func tamperingFailsClosedAndChangesNothing(_ tampering: Tampering) throws {
    let (folder, store, user) = try Self.makeState()
    tampering.apply(folder.state)
    let before = snapshot(folder.path)
    let path = tampering.path(folder.state)
    var bodyRan = false
    do {
      try store.update(user) { record in
        bodyRan = true
        record.passcodeFailures = 0
      }
      Issue.record("\(tampering): update succeeded")
    } catch {
      Self.expectNames(error, path: path, reason: tampering.reason, "\(tampering) / update")
    }
    #expect(!bodyRan, "\(tampering): the change ran")
    if !TamperingTests.lockCases.contains(where: { $0.description == tampering.description }) {
      do {
        _ = try store.load(user)
        Issue.record("\(tampering): load succeeded")
      } catch {
        Self.expectNames(error, path: path, reason: tampering.reason, "\(tampering) / load")
      }
    }
    #expect(snapshot(folder.path) == before, "\(tampering): the folder changed")
  }

  @Test func unsafeUserNamesAreRejectedBeforeAnyPath() throws {
    let (folder, store, _) = try Self.makeState()
    let before = snapshot(folder.path)
    let names = [
      "", "/", "../alice", "..", ".", "a/b", "alice/../../etc", ".hidden", "tab\there", "new\nline", "nul\u{0}byte",
      "esc\u{1B}[31m", "del\u{7F}", String(repeating: "a", count: 257), String(repeating: "é", count: 129),
    ]
    var rejected = 0
    for name in names {
      do {
        let user = try UserName(name)
        Issue.record("accepted an unsafe name of \(name.utf8.count) bytes: \(user.value.debugDescription)")
      } catch {
        guard case .invalidUserName(let reason) = error else {
          Issue.record("wrong error \(error)")
          continue
        }
        #expect(!reason.isEmpty)
        if name.utf8.count > 3 { #expect(!error.description.contains(name), "the error repeats the name") }
        rejected += 1
      }
    }
    #expect(try UserName(String(repeating: "a", count: 256)).value.utf8.count == 256)
    #expect(try store.users().map(\.value) == ["alice"])
    #expect(snapshot(folder.path) == before)
    report("tampering: \(Self.cases.count + Self.lockCases.count) kinds of tampered state and \(rejected) unsafe user names refused with a StateError naming the file, nothing changed")
  }
}
