// CPAM: the Linux-PAM headers, plus the few shims Swift cannot call directly.
#ifndef CPAM_SHIM_H
#define CPAM_SHIM_H

#include <security/pam_appl.h>
#include <security/pam_modules.h>
#include <security/pam_ext.h>
#include <syslog.h>

// pam_syslog is variadic, which Swift cannot import; this passes one preformatted sentence.
static inline void cpam_syslog(const pam_handle_t *pamh, int priority, const char *message) {
  pam_syslog(pamh, priority, "%s", message);
}

// PAM_SILENT imports as an unsigned macro while flags are int; this gives Swift the int test.
static inline int cpam_is_silent(int flags) { return (flags & PAM_SILENT) != 0; }

#endif
