@testable import LocalAuthCore
import Testing

/// Rule 8 of docs/RULES.md: the domain state, an opaque value that changes on every enrollment change.
@Suite("Rule 8: domain state")
struct Rule8DomainStateTests {
  @Test("Rule 8: the domain state is nil when nothing is enrolled")
  func nilWhenNothingEnrolled() throws {
    let world = try TestWorld()
    #expect(try world.evaluator.domainState(for: world.user) == nil)
    try world.setPasscode()
    #expect(try world.evaluator.domainState(for: world.user) == nil)
    try world.enroll()
    try world.admin.unenroll(TestWorld.item, for: world.user)
    #expect(try world.evaluator.domainState(for: world.user) == nil)
  }

  @Test("Rule 8: adding an identity changes the domain state")
  func changesOnAdd() throws {
    let world = try TestWorld()
    try world.enroll()
    let first = try #require(try world.evaluator.domainState(for: world.user))
    try world.enroll("left-index")
    let second = try #require(try world.evaluator.domainState(for: world.user))
    #expect(first != second)
  }

  @Test("Rule 8: removing an identity changes the domain state")
  func changesOnRemove() throws {
    let world = try TestWorld()
    try world.enroll()
    try world.enroll("left-index")
    let before = try world.evaluator.domainState(for: world.user)
    try world.admin.unenroll("left-index", for: world.user)
    let after = try world.evaluator.domainState(for: world.user)
    #expect(after != nil && after != before)
  }

  @Test("Rule 8: add-then-remove yields a new value, not the earlier one")
  func addThenRemoveIsNew() throws {
    let world = try TestWorld()
    try world.enroll()
    let original = try world.evaluator.domainState(for: world.user)
    try world.enroll("left-index")
    let added = try world.evaluator.domainState(for: world.user)
    try world.admin.unenroll("left-index", for: world.user)
    let removed = try world.evaluator.domainState(for: world.user)
    #expect(Set([original, added, removed]).count == 3)
    // Re-enrolling the same finger name is a change too.
    try world.enroll("left-index")
    #expect(try world.evaluator.domainState(for: world.user) != added)
  }

  @Test("Rule 8: the domain state is identical while nothing changes")
  func stableWithoutChange() throws {
    let world = try TestWorld()
    try world.prime()
    let state = try world.evaluator.domainState(for: world.user)
    world.present(world.genuine())
    _ = try world.evaluate(.deviceOwnerAuthenticationWithBiometrics)
    world.present(world.impostor(), world.impostor(), world.impostor())
    _ = try world.evaluate(.deviceOwnerAuthenticationWithBiometrics)
    world.prompter.enqueue("0000", TestWorld.passcode)
    _ = try world.evaluate(.deviceOwnerAuthentication)
    _ = try world.evaluate(.deviceOwnerAuthentication)
    try world.admin.reset(world.user)
    try world.setPasscode("5678")
    world.clock.advance(by: 3600)
    #expect(try world.evaluator.domainState(for: world.user) == state)
  }

  @Test("Rule 8: the domain state persists in a FileStateStore and is opaque")
  func persistsAndOpaque() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let world = try TestWorld(store: FileStateStore(root: folder.path))
    try world.enroll()
    let state = try #require(try world.evaluator.domainState(for: world.user))
    let other = try TestWorld(store: FileStateStore(root: folder.path))
    #expect(try other.evaluator.domainState(for: other.user) == state)
    #expect(!state.contains(TestWorld.item) && !state.contains("alice"))
    #expect(state.utf8.count == 64)
  }

  @Test("Rule 8: a refused enrollment leaves the domain state alone")
  func refusedEnrollmentNoChange() throws {
    let world = try TestWorld()
    try world.enroll()
    let state = try world.evaluator.domainState(for: world.user)
    #expect(throws: LocalAuthError.administration(.alreadyEnrolled(TestWorld.item))) { try world.enroll() }
    #expect(throws: LocalAuthError.administration(.notEnrolled("thumb"))) { try world.admin.unenroll("thumb", for: world.user) }
    #expect(try world.evaluator.domainState(for: world.user) == state)
  }
}
