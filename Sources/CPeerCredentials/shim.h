// CPeerCredentials: the kernel's word on who sent a message on a Unix socket (SO_PASSCRED, SCM_CREDENTIALS).
//
// localauth-helper serves an app's session on a socket the app made; every message it reads must come from that
// app's process, not from another process the descriptor was passed to. glibc declares struct ucred and
// SCM_CREDENTIALS under _GNU_SOURCE only, and defining it here would give this module another view of the C
// library's types than CSyscalls' (fd_set gains `fds_bits`), which the compiler refuses when one Swift file imports
// both. So, as CSyscalls does for getresuid, the two are declared here as the kernel defines them (struct ucred
// in include/linux/socket.h, SCM_CREDENTIALS 0x02), unchanged since Linux 2.2.
#ifndef CPEERCREDENTIALS_SHIM_H
#define CPEERCREDENTIALS_SHIM_H
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/syscall.h>
#include <unistd.h>

/// SCM_CREDENTIALS: the control message carrying a struct ucred.
#define CPEER_SCM_CREDENTIALS 2

/// struct ucred as the kernel fills it.
struct cpeer_ucred {
  pid_t pid;
  uid_t uid;
  gid_t gid;
};
_Static_assert(sizeof(struct cpeer_ucred) == 12, "struct ucred is three 32-bit ids");

/// Asks the kernel to attach the sender's credentials to every message `fd` receives from now on.
static inline int cpeer_pass_credentials(int fd) {
  int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
}

/// True when the kernel attaches credentials to what `fd` receives (SO_PASSCRED is set).
static inline int cpeer_passes_credentials(int fd) {
  int on = 0;
  socklen_t size = sizeof on;
  return getsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, &size) == 0 && on != 0;
}

/// recv(2) with the sender's credentials: returns what recvmsg returns (-1 with errno set on failure); `pid` and
/// `uid` are the sender's process id and user id as the kernel attached them, or -1 when none came with the bytes.
/// Descriptors passed along (SCM_RIGHTS) are closed at once: nothing the helper reads may open a file for it.
static inline ssize_t cpeer_receive(int fd, void *buffer, size_t length, int flags, pid_t *pid, long long *uid) {
  union {
    struct cmsghdr align;
    char bytes[CMSG_SPACE(sizeof(struct cpeer_ucred)) + CMSG_SPACE(16 * sizeof(int))];
  } control;
  struct iovec vector = {.iov_base = buffer, .iov_len = length};
  struct msghdr message = {0};
  message.msg_iov = &vector;
  message.msg_iovlen = 1;
  message.msg_control = control.bytes;
  message.msg_controllen = sizeof control.bytes;
  *pid = -1;
  *uid = -1;
  ssize_t got = recvmsg(fd, &message, flags | MSG_CMSG_CLOEXEC);
  if (got < 0) return got;
  for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET) continue;
    if (header->cmsg_type == CPEER_SCM_CREDENTIALS && header->cmsg_len >= CMSG_LEN(sizeof(struct cpeer_ucred))) {
      struct cpeer_ucred credentials;
      __builtin_memcpy(&credentials, CMSG_DATA(header), sizeof credentials);
      *pid = credentials.pid;
      *uid = credentials.uid;
    } else if (header->cmsg_type == SCM_RIGHTS) {
      size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t index = 0; index < count; index++) {
        int passed;
        __builtin_memcpy(&passed, CMSG_DATA(header) + index * sizeof(int), sizeof passed);
        close(passed);
      }
    }
  }
  if (message.msg_flags & MSG_CTRUNC) {
    *pid = -1;
    *uid = -1;
  }
  return got;
}
/// The process id at the other end of the Unix socket that process `pid` holds as descriptor `fd`, as the kernel
/// recorded it when the connection was made (SO_PEERCRED); -1 when `fd` is not a connected Unix socket, the process
/// is gone, or this process may not take a copy of its descriptor (pidfd_getfd needs ptrace access: root's).
/// The copy is closed before returning.
static inline pid_t cpeer_socket_peer_pid(pid_t pid, int fd) {
  int process = (int)syscall(SYS_pidfd_open, pid, 0);
  if (process < 0) return -1;
  int copy = (int)syscall(SYS_pidfd_getfd, process, fd, 0);
  close(process);
  if (copy < 0) return -1;
  struct cpeer_ucred credentials = {.pid = -1};
  socklen_t size = sizeof credentials;
  int got = getsockopt(copy, SOL_SOCKET, SO_PEERCRED, &credentials, &size);
  close(copy);
  return got == 0 && size == sizeof credentials && credentials.pid > 0 ? credentials.pid : -1;
}
#endif
