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

  func load(_ user: UserName) throws(LocalAuthError) -> UserRecord? { try inner.load(user) }

  func modify(_ user: UserName, _ body: (inout UserRecord) throws(LocalAuthError) -> Void) throws(LocalAuthError) {
    try inner.modify(user) { (record: inout UserRecord) throws(LocalAuthError) in
      if holdMicroseconds > 0 { usleep(holdMicroseconds) }
      try body(&record)
    }
  }

  func remove(_ user: UserName) throws(LocalAuthError) { try inner.remove(user) }

  func users() throws(LocalAuthError) -> [UserName] { try inner.users() }
}
