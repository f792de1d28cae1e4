/// Where user records live; every change is a locked read-modify-write.
public protocol StateStore: AnyObject {
  /// Reads a user's record; nil when the user has none.
  func load(_ user: UserName) throws -> UserRecord?
  /// Locks the user's record, lets `body` change it, and writes it back if it changed.
  /// The lock is held only for this call, never across a prompt or a sensor wait.
  func update<T>(_ user: UserName, _ body: (inout UserRecord) throws -> T) throws -> T
  /// Deletes a user's record.
  func remove(_ user: UserName) throws
  /// The users that have a record.
  func users() throws -> [UserName]
}

/// A store in memory, for tests and for callers that persist nothing.
public final class InMemoryStateStore: StateStore, @unchecked Sendable {
  private let lock = Mutex()
  private var records: [UserName: UserRecord] = [:]

  /// Creates an empty store.
  public init() {}

  public func load(_ user: UserName) throws -> UserRecord? { lock.withLock { records[user] } }

  public func update<T>(_ user: UserName, _ body: (inout UserRecord) throws -> T) throws -> T {
    try lock.withLock {
      var record = records[user] ?? UserRecord()
      let result = try body(&record)
      records[user] = record
      return result
    }
  }

  public func remove(_ user: UserName) throws { _ = lock.withLock { records.removeValue(forKey: user) } }

  public func users() throws -> [UserName] { lock.withLock { Array(records.keys) } }
}
