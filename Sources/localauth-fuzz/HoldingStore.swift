#if canImport(Glibc)
import Glibc
#endif
import LocalAuthCore

/// A file store that holds each user's lock a while longer, as a slow disk would, to show who waits on whom.
final class HoldingStore: StateStore {
  let inner: FileStateStore
  let holdMicroseconds: UInt32

  init(_ inner: FileStateStore, holdMilliseconds: UInt32) {
    self.inner = inner
    self.holdMicroseconds = holdMilliseconds * 1000
  }

  func load(_ user: UserName) throws -> UserRecord? { try inner.load(user) }

  func update<T>(_ user: UserName, _ body: (inout UserRecord) throws -> T) throws -> T {
    try inner.update(user) { record in
      if holdMicroseconds > 0 { usleep(holdMicroseconds) }
      return try body(&record)
    }
  }

  func remove(_ user: UserName) throws { try inner.remove(user) }

  func users() throws -> [UserName] { try inner.users() }
}
