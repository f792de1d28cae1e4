#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small pthread mutex for the few shared test doubles; the module itself is single-threaded.
final class Mutex: @unchecked Sendable {
  private let handle = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

  init() { pthread_mutex_init(handle, nil) }
  deinit {
    pthread_mutex_destroy(handle)
    handle.deallocate()
  }

  func withLock<T>(_ body: () throws -> T) rethrows -> T {
    pthread_mutex_lock(handle)
    defer { pthread_mutex_unlock(handle) }
    return try body()
  }
}
