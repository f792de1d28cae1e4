// CCrypt: libxcrypt (Debian's libcrypt-dev), for yescrypt passcode hashes like /etc/shadow's.
//
// libcrypt.so.1 is opened on first use (dlopen), not linked: a fingerprint authentication never hashes, and
// loading and relocating the library cost every sudo about 60,000 instructions and 200 KiB of memory. Swift
// calls the two wrappers below; each returns NULL, as libxcrypt itself does on failure, when the library or
// the function cannot be found, so every caller already fails closed.
#ifndef CCRYPT_SHIM_H
#define CCRYPT_SHIM_H
#include <crypt.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

typedef char *(*ccrypt_rn_function)(const char *phrase, const char *setting, void *data, int size);
typedef char *(*ccrypt_gensalt_rn_function)(const char *prefix, unsigned long count, const char *rbytes, int nrbytes,
                                            char *output, int output_size);

/// The two libxcrypt functions, or NULL where they could not be found.
typedef struct {
  ccrypt_rn_function crypt_rn;
  ccrypt_gensalt_rn_function crypt_gensalt_rn;
} ccrypt_library;

/// The functions, filled in once (function-local statics, so that the header defines no global symbol).
static inline ccrypt_library *ccrypt_state(void) {
  static ccrypt_library state;
  return &state;
}

static inline void ccrypt_load(void) {
  void *handle = dlopen("libcrypt.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) return;
  ccrypt_state()->crypt_rn = (ccrypt_rn_function)dlsym(handle, "crypt_rn");
  ccrypt_state()->crypt_gensalt_rn = (ccrypt_gensalt_rn_function)dlsym(handle, "crypt_gensalt_rn");
}

/// The loaded functions (NULL members where missing), loading them on the first call.
static inline const ccrypt_library *ccrypt_functions(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, ccrypt_load);
  return ccrypt_state();
}

/// libxcrypt's crypt_rn, loaded on first use; NULL when libcrypt.so.1 cannot be loaded.
static inline char *ccrypt_rn(const char *phrase, const char *setting, void *data, int size) {
  const ccrypt_library *library = ccrypt_functions();
  return library->crypt_rn ? library->crypt_rn(phrase, setting, data, size) : NULL;
}

/// libxcrypt's crypt_gensalt_rn, loaded on first use; NULL when libcrypt.so.1 cannot be loaded.
static inline char *ccrypt_gensalt_rn(const char *prefix, unsigned long count, const char *rbytes, int nrbytes, char *output,
                                      int output_size) {
  const ccrypt_library *library = ccrypt_functions();
  return library->crypt_gensalt_rn ? library->crypt_gensalt_rn(prefix, count, rbytes, nrbytes, output, output_size) : NULL;
}
#endif
