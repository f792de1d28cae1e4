// CLibCrypto's table of libcrypto functions, typed by OpenSSL's own headers and filled in by dlopen on first use.
//
// libcrypto.so.3 is opened on first use, not linked: an authentication that never touches the keychain does not
// load it, and a machine without it still loads the module. The declarations come from OpenSSL's headers
// (libssl-dev, needed to build only): each member of clibcrypto_library is declared as __typeof__(&function), so
// the compiler checks every call against OpenSSL's prototype, and nothing here refers to the functions themselves,
// so the linker asks for no libcrypto symbol. dlsym looks up the name the header's declaration resolves to (a
// name that is a macro, such as EVP_MD_size for EVP_MD_get_size, is looked up under its expansion).
#ifndef CLIBCRYPTO_LIBRARY_H
#define CLIBCRYPTO_LIBRARY_H
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/obj_mac.h>
#include <openssl/params.h>
#include <openssl/rand.h>

/// Every libcrypto function the shim calls, one X(name) each; the member of clibcrypto_library has the same name.
#define CLIBCRYPTO_FUNCTIONS(X)                                                                                      \
  /* Random bytes, SHA-256, HMAC-SHA256, and the thread's error queue */                                             \
  X(RAND_bytes) X(EVP_sha256) X(EVP_Digest) X(HMAC) X(ERR_clear_error)                                               \
  /* AES-256-GCM */                                                                                                  \
  X(EVP_CIPHER_CTX_new) X(EVP_CIPHER_CTX_free) X(EVP_CIPHER_CTX_ctrl) X(EVP_aes_256_gcm) X(EVP_EncryptInit_ex)       \
  X(EVP_EncryptUpdate) X(EVP_EncryptFinal_ex) X(EVP_DecryptInit_ex) X(EVP_DecryptUpdate) X(EVP_DecryptFinal_ex)      \
  /* Keys and key agreement (X25519, P-256) */                                                                       \
  X(EVP_PKEY_CTX_new_id) X(EVP_PKEY_CTX_new) X(EVP_PKEY_CTX_new_from_name) X(EVP_PKEY_CTX_free)                      \
  X(EVP_PKEY_keygen_init) X(EVP_PKEY_keygen) X(EVP_PKEY_CTX_set_group_name) X(EVP_PKEY_free)                         \
  X(EVP_PKEY_get_raw_private_key) X(EVP_PKEY_get_raw_public_key) X(EVP_PKEY_new_raw_private_key)                     \
  X(EVP_PKEY_new_raw_public_key) X(EVP_PKEY_get_bn_param) X(EVP_PKEY_get_octet_string_param)                        \
  X(EVP_PKEY_fromdata_init) X(EVP_PKEY_fromdata) X(EVP_PKEY_derive_init) X(EVP_PKEY_derive_set_peer)                 \
  X(EVP_PKEY_derive)                                                                                                 \
  /* Parameters for EVP_PKEY_fromdata */                                                                             \
  X(OSSL_PARAM_construct_utf8_string) X(OSSL_PARAM_construct_octet_string) X(OSSL_PARAM_construct_BN)                \
  X(OSSL_PARAM_construct_end)                                                                                        \
  /* Big numbers and P-256 points (range and curve checks, the public key of a private one) */                       \
  X(BN_bin2bn) X(BN_bn2binpad) X(BN_bn2nativepad) X(BN_is_zero) X(BN_cmp) X(BN_clear_free)                           \
  X(EC_GROUP_new_by_curve_name) X(EC_GROUP_get0_order) X(EC_GROUP_free) X(EC_POINT_new) X(EC_POINT_free)             \
  X(EC_POINT_mul) X(EC_POINT_oct2point) X(EC_POINT_point2oct)                                                        \
  /* ECDSA over a message (SHA-256 inside) or over a digest */                                                       \
  X(EVP_MD_CTX_new) X(EVP_MD_CTX_free) X(EVP_DigestSignInit) X(EVP_DigestSign) X(EVP_DigestVerifyInit)               \
  X(EVP_DigestVerify) X(EVP_PKEY_sign_init) X(EVP_PKEY_sign) X(EVP_PKEY_verify_init) X(EVP_PKEY_verify)

/// The libcrypto functions, or NULL where they could not be found.
typedef struct {
#define CLIBCRYPTO_MEMBER(name) __typeof__(&name) name;
  CLIBCRYPTO_FUNCTIONS(CLIBCRYPTO_MEMBER)
#undef CLIBCRYPTO_MEMBER
} clibcrypto_library;

/// A function's name as a string, after macro expansion (the symbol libcrypto exports).
#define CLIBCRYPTO_SYMBOL(name) CLIBCRYPTO_STRING(name)
#define CLIBCRYPTO_STRING(name) #name

/// The functions, filled in once (function-local statics, so that the header defines no global symbol).
static inline clibcrypto_library *clibcrypto_state(void) {
  static clibcrypto_library state;
  return &state;
}

static inline void clibcrypto_load(void) {
  void *handle = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) return;
  clibcrypto_library *l = clibcrypto_state();
#define CLIBCRYPTO_LOAD(name) l->name = (__typeof__(l->name))dlsym(handle, CLIBCRYPTO_SYMBOL(name));
  CLIBCRYPTO_FUNCTIONS(CLIBCRYPTO_LOAD)
#undef CLIBCRYPTO_LOAD
}

/// The loaded functions (NULL members where missing), loading them on the first call.
static inline const clibcrypto_library *clibcrypto_functions(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, clibcrypto_load);
  return clibcrypto_state();
}

/// 1 when libcrypto.so.3 was loaded and every function in CLIBCRYPTO_FUNCTIONS was found, else -1.
static inline int clibcrypto_available(void) {
  const clibcrypto_library *l = clibcrypto_functions();
#define CLIBCRYPTO_FOUND(name) &&l->name != NULL
  return 1 CLIBCRYPTO_FUNCTIONS(CLIBCRYPTO_FOUND) ? 1 : -1;
#undef CLIBCRYPTO_FOUND
}

/// Overwrites `n` bytes with zeros through a volatile pointer, so that the stores are never optimised away.
static inline void clibcrypto_wipe(void *p, size_t n) {
  volatile unsigned char *bytes = (volatile unsigned char *)p;
  for (size_t i = 0; i < n; i++) bytes[i] = 0;
}

/// A non-NULL pointer for a buffer that may be empty (and NULL) when it is: OpenSSL rejects some NULL inputs.
static inline const uint8_t *clibcrypto_nonnull(const uint8_t *p) {
  static const uint8_t empty[1] = {0};
  return p != NULL ? p : empty;
}
#endif
