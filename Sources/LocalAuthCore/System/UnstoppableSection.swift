import CSyscalls

/// A stretch of code, the time a user's lock is held, during which nobody but root can stop a setuid host
/// (docs/RELIABILITY.md, "Locks: nobody but root stops a holder").
///
/// A setuid program run by user B (su, sudo, localauth-helper: real uid B, effective uid 0) can be stopped by B:
/// kill(2) lets a user signal a process whose real or saved uid is the user's. `enter()` sets the real and saved
/// uids to 0 as well (the effective uid already is), so B's SIGSTOP is refused with EPERM, and blocks SIGTSTP,
/// SIGTTIN and SIGTTOU on the calling thread, which the terminal sends with no permission check (Ctrl-Z).
/// `leave()` puts the ids and the signal mask back; if the ids cannot be put back the process aborts rather than
/// go on with ids its host did not choose. A process whose real uid is root, or whose effective uid is not,
/// is left as it is (nobody else can stop the first; the second cannot hold a lock of the state folder).
struct UnstoppableSection {
  /// The real, effective and saved uids to put back, when they were changed.
  private let ids: (real: uid_t, effective: uid_t, saved: uid_t)?
  /// The calling thread's signal mask before `enter()`, when it was changed.
  private let mask: sigset_t?

  /// Makes the process unstoppable by its caller, when it is a setuid-root host run by another user.
  static func enter() -> UnstoppableSection {
    var real: uid_t = 0, effective: uid_t = 0, saved: uid_t = 0
    guard getresuid(&real, &effective, &saved) == 0, effective == 0, real != 0 || saved != 0 else {
      return UnstoppableSection(ids: nil, mask: nil)
    }
    var stops = sigset_t()
    sigemptyset(&stops)
    sigaddset(&stops, SIGTSTP)
    sigaddset(&stops, SIGTTIN)
    sigaddset(&stops, SIGTTOU)
    var previous = sigset_t()
    let masked = pthread_sigmask(SIG_BLOCK, &stops, &previous) == 0
    // setresuid either changes all three ids or none: when it fails the process is as stoppable as before, and
    // the lock it takes is still a lock.
    let switched = setresuid(0, 0, 0) == 0
    return UnstoppableSection(ids: switched ? (real, effective, saved) : nil, mask: masked ? previous : nil)
  }

  /// Puts back the ids and the signal mask that `enter()` changed; aborts if the ids cannot be put back.
  func leave() {
    if let ids {
      var real: uid_t = 0, effective: uid_t = 0, saved: uid_t = 0
      guard setresuid(ids.real, ids.effective, ids.saved) == 0, getresuid(&real, &effective, &saved) == 0,
        real == ids.real, effective == ids.effective, saved == ids.saved
      else {
        // Fail closed: a host that goes on as real uid root could hand root to its caller (a shell run by su
        // keeps the ids it inherits). Nothing is written or unlocked half-way: the lock was released first.
        abort()
      }
    }
    if var mask { pthread_sigmask(SIG_SETMASK, &mask, nil) }
  }
}
