// CPAM: the Linux-PAM headers, plus the few shims Swift cannot call directly.
#ifndef CPAM_SHIM_H
#define CPAM_SHIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE  // dladdr
#endif
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>
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

// pam_localauth/extra.so, the module's rarely used parts (docs/EMBEDDED.md): opened on first use from the folder the
// module itself was loaded from, never unloaded. Its one entry point runs a whole PAM operation.
typedef int (*cpam_extra_entry)(int operation, pam_handle_t *pamh, int flags, int argc, const char **argv);

// The file this code was loaded from, as the dynamic loader names it (the path in the PAM stack line, or the
// default module folder's), copied into buffer; 0, or -1 when it is unknown or longer than size - 1 bytes.
static inline int cpam_loaded_from(char *buffer, size_t size) {
  Dl_info info;
  if (dladdr((const void *)&cpam_loaded_from, &info) == 0 || info.dli_fname == NULL) return -1;
  size_t length = strlen(info.dli_fname);
  if (length + 1 > size) return -1;
  memcpy(buffer, info.dli_fname, length + 1);
  return 0;
}

// Opens the library at path (RTLD_NOW, RTLD_LOCAL) and finds its entry point; NULL when either fails, with the
// loader's reason in reason (at most size - 1 bytes).
static inline cpam_extra_entry cpam_open_extra(const char *path, const char *symbol, char *reason, size_t size) {
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  void *entry = handle != NULL ? dlsym(handle, symbol) : NULL;
  if (entry == NULL && size > 0) {
    const char *error = dlerror();
    reason[0] = 0;
    if (error != NULL) { strncpy(reason, error, size - 1); reason[size - 1] = 0; }
  }
  if (entry == NULL && handle != NULL) dlclose(handle);
  return (cpam_extra_entry)entry;
}

#endif
