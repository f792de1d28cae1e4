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
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
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

#endif
