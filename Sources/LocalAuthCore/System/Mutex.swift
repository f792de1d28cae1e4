import CSyscalls

/// A small pthread mutex for state shared between threads (caches, test doubles); the module runs one thread.
package final class Mutex: @unchecked Sendable {
  private let handle = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

  package init() { pthread_mutex_init(handle, nil) }
  deinit {
    pthread_mutex_destroy(handle)
    handle.deallocate()
  }

  package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    pthread_mutex_lock(handle)
    defer { pthread_mutex_unlock(handle) }
    return try body()
  }
}
