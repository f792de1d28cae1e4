import LocalAuthCore

/// A store in memory, for tests and for callers that persist nothing.
public final class InMemoryStateStore: StateStore, @unchecked Sendable {
  private let lock = Mutex()
  private var records: [UserName: UserRecord] = [:]

  /// Creates an empty store.
  public init() {}

  public func load(_ user: UserName) throws(LocalAuthError) -> UserRecord? { lock.withLock { records[user] } }

  public func modify(_ user: UserName, _ body: (inout UserRecord) throws(LocalAuthError) -> Void) throws(LocalAuthError) {
    try lock.withLock { () throws(LocalAuthError) in
      var record = records[user] ?? UserRecord()
      try body(&record)
      records[user] = record
    }
  }

  public func remove(_ user: UserName) throws(LocalAuthError) { _ = lock.withLock { records.removeValue(forKey: user) } }

  public func users() throws(LocalAuthError) -> [UserName] { lock.withLock { Array(records.keys) } }
}
