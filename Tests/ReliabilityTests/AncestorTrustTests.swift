import Glibc
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// The folders above the state folder, and records with more than one name: every folder from / down must be
/// root's and not writable by group or others unless sticky (as /tmp); symbolic links among them must be root's
/// and lead through folders that pass the same test; a record with a second hard link is refused.
@Suite(.serialized)
struct AncestorTrustTests {
  /// A temporary folder holding `middle/state` with one record, the store over it, and the user.
  static func makeState() throws -> (TemporaryFolder, String, FileStateStore, UserName) {
    let folder = TemporaryFolder("ancestors")
    let middle = folder.path + "/middle"
    #expect(mkdir(middle, 0o755) == 0)
    let store = FileStateStore(root: middle + "/state")
    let user = try UserName("alice")
    try store.update(user) { record in record.passcodeFailures = 3 }
    return (folder, middle, store, user)
  }

  /// Expects load and update to fail with `.insecure` naming `path` with `reason`, and nothing to change.
  static func expectRefused(_ store: FileStateStore, _ user: UserName, in folder: String, path: String, reason: String) {
    let before = snapshot(folder)
    for (label, attempt) in [
      ("load", { _ = try store.load(user) }), ("update", { try store.update(user) { $0.passcodeFailures = 0 } }),
    ] as [(String, () throws -> Void)] {
      do {
        try attempt()
        Issue.record("\(label) succeeded")
      } catch {
        guard let error = stateError(error) else {
          Issue.record("\(label): not a StateError: \(error)")
          continue
        }
        guard case .insecure(let named, let why) = error else {
          Issue.record("\(label): expected .insecure, got \(error)")
          continue
        }
        #expect(named == path && why.contains(reason), "\(label): \(error)")
        #expect(error.description == "The state file \(path) is insecure: \(why).", "\(label): \(error)")
      }
    }
    #expect(snapshot(folder) == before, "the folder changed")
  }

  @Test func aFolderAboveOwnedByAUserIsRefused() throws {
    let (folder, middle, store, user) = try Self.makeState()
    #expect(chown(middle, nobodyUID, 0) == 0)
    Self.expectRefused(store, user, in: folder.path, path: middle, reason: "it is above the state folder and owned by uid \(nobodyUID), not root")
  }

  @Test(arguments: [0o777 as mode_t, 0o775, 0o757])
  func aFolderAboveWritableByOthersWithoutStickyIsRefused(_ mode: mode_t) throws {
    let (folder, middle, store, user) = try Self.makeState()
    #expect(chmod(middle, mode) == 0)
    Self.expectRefused(
      store, user, in: folder.path, path: middle,
      reason: "writable by group or others without the sticky bit (mode \(String(mode, radix: 8)))")
  }

  @Test func aStickyFolderAboveOwnedByRootIsAccepted() throws {
    let (folder, middle, store, user) = try Self.makeState()
    defer { withExtendedLifetime(folder) {} }
    #expect(chmod(middle, 0o1777) == 0)
    #expect(try store.load(user)?.passcodeFailures == 3)
    try store.update(user) { $0.passcodeFailures = 4 }
    #expect(try store.load(user)?.passcodeFailures == 4)
  }

  @Test func aStickyFolderAboveOwnedByAUserIsRefused() throws {
    let (folder, middle, store, user) = try Self.makeState()
    #expect(chmod(middle, 0o1777) == 0 && chown(middle, nobodyUID, 0) == 0)
    Self.expectRefused(store, user, in: folder.path, path: middle, reason: "owned by uid \(nobodyUID), not root")
  }

  @Test func theTestSuitesOwnTemporaryFoldersPass() throws {
    // /tmp (root, 1777) and mkdtemp's folder (root, 0700): the path every other test's state lives under.
    let folder = TemporaryFolder("plain")
    #expect(mkdir(folder.state, 0o700) == 0)
    try FileSyscalls.checkTrustedAncestors(of: folder.state + "/users")
    try FileSyscalls.checkTrustedAncestors(of: FileStateStore.defaultRoot)
  }

  @Test func aRootOwnedSymbolicLinkAboveIsFollowedAndItsTargetChecked() throws {
    let (folder, middle, _, user) = try Self.makeState()
    // /var/run → /run: a link made by root, in a trusted folder, to a trusted folder.
    #expect(symlink("middle", folder.path + "/via-link") == 0)
    let viaLink = FileStateStore(root: folder.path + "/via-link/state")
    #expect(try viaLink.load(user)?.passcodeFailures == 3)
    // The same link now leads to a folder a user owns: the folder behind the link is refused.
    #expect(chown(middle, nobodyUID, 0) == 0)
    Self.expectRefused(viaLink, user, in: folder.path, path: middle, reason: "owned by uid \(nobodyUID), not root")
  }

  @Test func aSymbolicLinkAboveOwnedByAUserIsRefused() throws {
    let (folder, _, _, user) = try Self.makeState()
    #expect(symlink("middle", folder.path + "/via-link") == 0)
    #expect(lchown(folder.path + "/via-link", nobodyUID, 0) == 0)
    let viaLink = FileStateStore(root: folder.path + "/via-link/state")
    Self.expectRefused(
      viaLink, user, in: folder.path, path: folder.path + "/via-link",
      reason: "is a symbolic link owned by uid \(nobodyUID), not root")
  }

  @Test func aLoopOfSymbolicLinksAboveIsRefused() throws {
    let (folder, _, _, user) = try Self.makeState()
    #expect(symlink("b", folder.path + "/a") == 0 && symlink("a", folder.path + "/b") == 0)
    Self.expectRefused(
      FileStateStore(root: folder.path + "/a/state"), user, in: folder.path, path: folder.path + "/a",
      reason: "too many or unreadable symbolic links")
  }

  @Test func aMissingFolderAboveIsNoStateRatherThanAnError() throws {
    let folder = TemporaryFolder("ancestors-missing")
    let store = FileStateStore(root: folder.path + "/absent/state")
    #expect(try store.load(try UserName("alice")) == nil)
  }

  @Test func aRecordWithASecondHardLinkIsRefused() throws {
    let (folder, middle, store, user) = try Self.makeState()
    let record = middle + "/state/users/alice"
    #expect(link(record, folder.path + "/kept-copy") == 0)
    Self.expectRefused(store, user, in: folder.path, path: record, reason: "it has 2 hard links")
    #expect(unlink(folder.path + "/kept-copy") == 0)
    #expect(try store.load(user)?.passcodeFailures == 3)
  }
}
