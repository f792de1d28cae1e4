// CSyscalls: the C library calls LocalAuthCore makes, in one module both Swift modes import. Embedded Swift
// (how pam_localauth.so is built) has no Glibc overlay, so the core never imports Glibc; the shims below are
// only what Swift cannot call directly (errno is a macro, open and fcntl are variadic).
#ifndef CSYSCALLS_SHIM_H
#define CSYSCALLS_SHIM_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <stdlib.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <shadow.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <utmp.h>

// errno is a macro over a thread-local location.
static inline int csyscalls_errno(void) { return errno; }

// open(2) is variadic; the mode is passed always (ignored without O_CREAT).
static inline int csyscalls_open(const char *path, int flags, mode_t mode) { return open(path, flags, mode); }

// openat(2) is variadic too.
static inline int csyscalls_openat(int dirfd, const char *path, int flags, mode_t mode) {
  return openat(dirfd, path, flags, mode);
}

// syslog(3) is variadic; localauth-helper logs one finished sentence.
static inline void csyscalls_syslog(int priority, const char *message) { syslog(priority, "%s", message); }

// close_range(2) (Linux 5.9): closes every descriptor from `first` up; glibc declares it only with _GNU_SOURCE.
static inline int csyscalls_close_from(unsigned int first) { return (int)syscall(SYS_close_range, first, ~0U, 0); }

// The numbers /proc/PID/syscall shows for a process waiting for input, on this architecture (-1 where the
// architecture has no such call: aarch64 has only pselect6 and ppoll).
static inline long csyscalls_read_number(void) { return SYS_read; }
static inline long csyscalls_pselect6_number(void) { return SYS_pselect6; }
static inline long csyscalls_ppoll_number(void) { return SYS_ppoll; }
static inline long csyscalls_select_number(void) {
#ifdef SYS_select
  return SYS_select;
#else
  return -1;
#endif
}
static inline long csyscalls_poll_number(void) {
#ifdef SYS_poll
  return SYS_poll;
#else
  return -1;
#endif
}

// getresuid(2) and setresuid(2), as <unistd.h> declares them under _GNU_SOURCE only (this module is not built with
// it). glibc's setresuid changes the ids of every thread of the process; a raw system call would change one.
extern int getresuid(uid_t *ruid, uid_t *euid, uid_t *suid);
extern int setresuid(uid_t ruid, uid_t euid, uid_t suid);

#endif
