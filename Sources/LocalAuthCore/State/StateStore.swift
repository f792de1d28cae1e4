/// Where user records live; every change is a locked read-modify-write.
public protocol StateStore: AnyObject {
  /// Reads a user's record; nil when the user has none.
  func load(_ user: UserName) throws(LocalAuthError) -> UserRecord?
  /// Locks the user's record, lets `body` change it, and writes it back if it changed.
  /// The lock is held only for this call, never across a prompt or a sensor wait.
  func modify(_ user: UserName, _ body: (inout UserRecord) throws(LocalAuthError) -> Void) throws(LocalAuthError)
  /// Deletes a user's record.
  func remove(_ user: UserName) throws(LocalAuthError)
  /// The users that have a record.
  func users() throws(LocalAuthError) -> [UserName]
}

extension StateStore {
  /// `modify(_:_:)` for a body that returns a value.
  package func update<T>(
    _ user: UserName, _ body: (inout UserRecord) throws(LocalAuthError) -> T
  ) throws(LocalAuthError) -> T {
    try updateRecord(in: self, user, body)
  }
}

/// `modify(_:_:)` with a result: a free function, because Embedded Swift cannot specialize a protocol's
/// generic extension method on an existential (`Dependencies.store`).
func updateRecord<T>(
  in store: any StateStore, _ user: UserName, _ body: (inout UserRecord) throws(LocalAuthError) -> T
) throws(LocalAuthError) -> T {
  var result: T?
  try store.modify(user) { (record: inout UserRecord) throws(LocalAuthError) in result = try body(&record) }
  guard let result else { preconditionFailure("modify(_:_:) returned without running its body") }
  return result
}
