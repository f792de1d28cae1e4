// CTPM's table of tpm2-tss functions, typed by tpm2-tss's own headers and filled in by dlopen on first use.
//
// libtss2-esys.so.0, libtss2-tctildr.so.0 and libtss2-mu.so.0 are opened on first use, not linked: a machine
// without tpm2-tss still loads the module, and an authentication that never seals pays nothing (ESAPI also brings
// in libcrypto). The declarations and structures come from tpm2-tss's headers (libtss2-dev, needed to build only):
// each member of ctpm_library is declared as __typeof__(&function), so the compiler checks every call against
// tpm2-tss's prototype, and nothing here refers to the functions themselves, so the linker asks for none of them.
#ifndef CTPM_LIBRARY_H
#define CTPM_LIBRARY_H
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_tctildr.h>

/// Every tpm2-tss function the shim calls, as X(library, name); the member of ctpm_library has the same name.
#define CTPM_FUNCTIONS(X)                                                                                            \
  X(tctildr, Tss2_TctiLdr_Initialize) X(tctildr, Tss2_TctiLdr_Finalize)                                              \
  X(esys, Esys_Initialize) X(esys, Esys_Finalize) X(esys, Esys_CreatePrimary) X(esys, Esys_Create)                   \
  X(esys, Esys_Load) X(esys, Esys_Unseal) X(esys, Esys_FlushContext) X(esys, Esys_Free)                              \
  X(mu, Tss2_MU_UINT16_Unmarshal) X(mu, Tss2_MU_TPM2B_PUBLIC_Marshal) X(mu, Tss2_MU_TPM2B_PUBLIC_Unmarshal)           \
  X(mu, Tss2_MU_TPM2B_PRIVATE_Marshal) X(mu, Tss2_MU_TPM2B_PRIVATE_Unmarshal)

/// The tpm2-tss functions used, or NULL where they could not be found.
typedef struct {
#define CTPM_MEMBER(library, name) __typeof__(&name) name;
  CTPM_FUNCTIONS(CTPM_MEMBER)
#undef CTPM_MEMBER
} ctpm_library;

/// A function's name as a string, after macro expansion (the symbol the library exports).
#define CTPM_SYMBOL(name) CTPM_STRING(name)
#define CTPM_STRING(name) #name

/// The functions, filled in once (function-local statics, so that the header defines no global symbol).
static inline ctpm_library *ctpm_state(void) {
  static ctpm_library state;
  return &state;
}

static inline void ctpm_load(void) {
  void *esys = dlopen("libtss2-esys.so.0", RTLD_NOW | RTLD_LOCAL);
  void *tctildr = dlopen("libtss2-tctildr.so.0", RTLD_NOW | RTLD_LOCAL);
  void *mu = dlopen("libtss2-mu.so.0", RTLD_NOW | RTLD_LOCAL);
  if (esys == NULL || tctildr == NULL || mu == NULL) return;
  ctpm_library *l = ctpm_state();
#define CTPM_LOAD(library, name) l->name = (__typeof__(l->name))dlsym(library, CTPM_SYMBOL(name));
  CTPM_FUNCTIONS(CTPM_LOAD)
#undef CTPM_LOAD
}

/// The loaded functions (NULL members where missing), loading them on the first call.
static inline const ctpm_library *ctpm_functions(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, ctpm_load);
  return ctpm_state();
}

/// True when every function in CTPM_FUNCTIONS was found.
static inline int ctpm_available(void) {
  const ctpm_library *l = ctpm_functions();
#define CTPM_FOUND(library, name) &&l->name != NULL
  return 1 CTPM_FUNCTIONS(CTPM_FOUND);
#undef CTPM_FOUND
}
#endif
