// CLibCrypto: the few OpenSSL libcrypto calls the keychain makes (AES-256-GCM, X25519, SHA-256, HMAC-SHA256).
//
// libcrypto.so.3 is opened on first use (dlopen), not linked: an authentication that never touches the keychain
// does not load it, and a machine without it still loads the module. No OpenSSL header is included (a build
// machine may lack libssl-dev): the types are opaque structs under our own names, the function types are written
// out here from OpenSSL 3's declarations, and only calls that are not variadic are used. Every wrapper returns
// 1 on success, 0 when authentication failed (a GCM tag that does not verify), -1 when the library or one of its
// functions is missing (clibcrypto_available says so first) and -2 on any other failure, so every caller fails
// closed. Buffers of length zero may be passed as NULL.
#ifndef CLIBCRYPTO_SHIM_H
#define CLIBCRYPTO_SHIM_H
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

// Opaque OpenSSL objects, only ever handled by pointer (EVP_MD, EVP_CIPHER, EVP_CIPHER_CTX, EVP_PKEY,
// EVP_PKEY_CTX, ENGINE). Our own tags, so that a translation unit that also includes OpenSSL sees no clash.
typedef struct clibcrypto_md clibcrypto_md;
typedef struct clibcrypto_cipher clibcrypto_cipher;
typedef struct clibcrypto_cipher_ctx clibcrypto_cipher_ctx;
typedef struct clibcrypto_pkey clibcrypto_pkey;
typedef struct clibcrypto_pkey_ctx clibcrypto_pkey_ctx;
typedef struct clibcrypto_engine clibcrypto_engine;

/// OpenSSL's constants (openssl/evp.h, openssl/obj_mac.h).
enum {
  CLIBCRYPTO_CTRL_GCM_SET_IVLEN = 0x9,
  CLIBCRYPTO_CTRL_GCM_GET_TAG = 0x10,
  CLIBCRYPTO_CTRL_GCM_SET_TAG = 0x11,
  CLIBCRYPTO_NID_X25519 = 1034,
};

/// The libcrypto functions, or NULL where they could not be found.
typedef struct {
  int (*rand_bytes)(unsigned char *buf, int num);
  const clibcrypto_md *(*sha256)(void);
  int (*digest)(const void *data, size_t count, unsigned char *md, unsigned int *size, const clibcrypto_md *type,
                clibcrypto_engine *impl);
  unsigned char *(*hmac)(const clibcrypto_md *evp_md, const void *key, int key_len, const unsigned char *data,
                         size_t data_len, unsigned char *md, unsigned int *md_len);
  clibcrypto_cipher_ctx *(*cipher_ctx_new)(void);
  void (*cipher_ctx_free)(clibcrypto_cipher_ctx *c);
  int (*cipher_ctx_ctrl)(clibcrypto_cipher_ctx *ctx, int type, int arg, void *ptr);
  const clibcrypto_cipher *(*aes_256_gcm)(void);
  int (*encrypt_init_ex)(clibcrypto_cipher_ctx *ctx, const clibcrypto_cipher *cipher, clibcrypto_engine *impl,
                         const unsigned char *key, const unsigned char *iv);
  int (*encrypt_update)(clibcrypto_cipher_ctx *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl);
  int (*encrypt_final_ex)(clibcrypto_cipher_ctx *ctx, unsigned char *out, int *outl);
  int (*decrypt_init_ex)(clibcrypto_cipher_ctx *ctx, const clibcrypto_cipher *cipher, clibcrypto_engine *impl,
                         const unsigned char *key, const unsigned char *iv);
  int (*decrypt_update)(clibcrypto_cipher_ctx *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl);
  int (*decrypt_final_ex)(clibcrypto_cipher_ctx *ctx, unsigned char *outm, int *outl);
  clibcrypto_pkey_ctx *(*pkey_ctx_new_id)(int id, clibcrypto_engine *e);
  clibcrypto_pkey_ctx *(*pkey_ctx_new)(clibcrypto_pkey *pkey, clibcrypto_engine *e);
  void (*pkey_ctx_free)(clibcrypto_pkey_ctx *ctx);
  int (*keygen_init)(clibcrypto_pkey_ctx *ctx);
  int (*keygen)(clibcrypto_pkey_ctx *ctx, clibcrypto_pkey **ppkey);
  int (*get_raw_private_key)(const clibcrypto_pkey *pkey, unsigned char *priv, size_t *len);
  int (*get_raw_public_key)(const clibcrypto_pkey *pkey, unsigned char *pub, size_t *len);
  clibcrypto_pkey *(*new_raw_private_key)(int type, clibcrypto_engine *e, const unsigned char *priv, size_t len);
  clibcrypto_pkey *(*new_raw_public_key)(int type, clibcrypto_engine *e, const unsigned char *pub, size_t len);
  int (*derive_init)(clibcrypto_pkey_ctx *ctx);
  int (*derive_set_peer)(clibcrypto_pkey_ctx *ctx, clibcrypto_pkey *peer);
  int (*derive)(clibcrypto_pkey_ctx *ctx, unsigned char *key, size_t *keylen);
  void (*pkey_free)(clibcrypto_pkey *pkey);
} clibcrypto_library;

/// The functions, filled in once (function-local statics, so that the header defines no global symbol).
static inline clibcrypto_library *clibcrypto_state(void) {
  static clibcrypto_library state;
  return &state;
}

static inline void clibcrypto_load(void) {
  void *handle = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) return;
  clibcrypto_library *l = clibcrypto_state();
  l->rand_bytes = (int (*)(unsigned char *, int))dlsym(handle, "RAND_bytes");
  l->sha256 = (const clibcrypto_md *(*)(void))dlsym(handle, "EVP_sha256");
  l->digest = (int (*)(const void *, size_t, unsigned char *, unsigned int *, const clibcrypto_md *,
                       clibcrypto_engine *))dlsym(handle, "EVP_Digest");
  l->hmac = (unsigned char *(*)(const clibcrypto_md *, const void *, int, const unsigned char *, size_t,
                                unsigned char *, unsigned int *))dlsym(handle, "HMAC");
  l->cipher_ctx_new = (clibcrypto_cipher_ctx * (*)(void)) dlsym(handle, "EVP_CIPHER_CTX_new");
  l->cipher_ctx_free = (void (*)(clibcrypto_cipher_ctx *))dlsym(handle, "EVP_CIPHER_CTX_free");
  l->cipher_ctx_ctrl = (int (*)(clibcrypto_cipher_ctx *, int, int, void *))dlsym(handle, "EVP_CIPHER_CTX_ctrl");
  l->aes_256_gcm = (const clibcrypto_cipher *(*)(void))dlsym(handle, "EVP_aes_256_gcm");
  l->encrypt_init_ex = (int (*)(clibcrypto_cipher_ctx *, const clibcrypto_cipher *, clibcrypto_engine *,
                                const unsigned char *, const unsigned char *))dlsym(handle, "EVP_EncryptInit_ex");
  l->encrypt_update = (int (*)(clibcrypto_cipher_ctx *, unsigned char *, int *, const unsigned char *, int))dlsym(
      handle, "EVP_EncryptUpdate");
  l->encrypt_final_ex = (int (*)(clibcrypto_cipher_ctx *, unsigned char *, int *))dlsym(handle, "EVP_EncryptFinal_ex");
  l->decrypt_init_ex = (int (*)(clibcrypto_cipher_ctx *, const clibcrypto_cipher *, clibcrypto_engine *,
                                const unsigned char *, const unsigned char *))dlsym(handle, "EVP_DecryptInit_ex");
  l->decrypt_update = (int (*)(clibcrypto_cipher_ctx *, unsigned char *, int *, const unsigned char *, int))dlsym(
      handle, "EVP_DecryptUpdate");
  l->decrypt_final_ex = (int (*)(clibcrypto_cipher_ctx *, unsigned char *, int *))dlsym(handle, "EVP_DecryptFinal_ex");
  l->pkey_ctx_new_id = (clibcrypto_pkey_ctx * (*)(int, clibcrypto_engine *)) dlsym(handle, "EVP_PKEY_CTX_new_id");
  l->pkey_ctx_new =
      (clibcrypto_pkey_ctx * (*)(clibcrypto_pkey *, clibcrypto_engine *)) dlsym(handle, "EVP_PKEY_CTX_new");
  l->pkey_ctx_free = (void (*)(clibcrypto_pkey_ctx *))dlsym(handle, "EVP_PKEY_CTX_free");
  l->keygen_init = (int (*)(clibcrypto_pkey_ctx *))dlsym(handle, "EVP_PKEY_keygen_init");
  l->keygen = (int (*)(clibcrypto_pkey_ctx *, clibcrypto_pkey **))dlsym(handle, "EVP_PKEY_keygen");
  l->get_raw_private_key =
      (int (*)(const clibcrypto_pkey *, unsigned char *, size_t *))dlsym(handle, "EVP_PKEY_get_raw_private_key");
  l->get_raw_public_key =
      (int (*)(const clibcrypto_pkey *, unsigned char *, size_t *))dlsym(handle, "EVP_PKEY_get_raw_public_key");
  l->new_raw_private_key = (clibcrypto_pkey * (*)(int, clibcrypto_engine *, const unsigned char *, size_t))
      dlsym(handle, "EVP_PKEY_new_raw_private_key");
  l->new_raw_public_key = (clibcrypto_pkey * (*)(int, clibcrypto_engine *, const unsigned char *, size_t))
      dlsym(handle, "EVP_PKEY_new_raw_public_key");
  l->derive_init = (int (*)(clibcrypto_pkey_ctx *))dlsym(handle, "EVP_PKEY_derive_init");
  l->derive_set_peer = (int (*)(clibcrypto_pkey_ctx *, clibcrypto_pkey *))dlsym(handle, "EVP_PKEY_derive_set_peer");
  l->derive = (int (*)(clibcrypto_pkey_ctx *, unsigned char *, size_t *))dlsym(handle, "EVP_PKEY_derive");
  l->pkey_free = (void (*)(clibcrypto_pkey *))dlsym(handle, "EVP_PKEY_free");
}

/// The loaded functions (NULL members where missing), loading them on the first call.
static inline const clibcrypto_library *clibcrypto_functions(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, clibcrypto_load);
  return clibcrypto_state();
}

/// 1 when libcrypto.so.3 was loaded and every function below was found, else -1.
static inline int clibcrypto_available(void) {
  const clibcrypto_library *l = clibcrypto_functions();
  int all = l->rand_bytes && l->sha256 && l->digest && l->hmac && l->cipher_ctx_new && l->cipher_ctx_free &&
            l->cipher_ctx_ctrl && l->aes_256_gcm && l->encrypt_init_ex && l->encrypt_update && l->encrypt_final_ex &&
            l->decrypt_init_ex && l->decrypt_update && l->decrypt_final_ex && l->pkey_ctx_new_id && l->pkey_ctx_new &&
            l->pkey_ctx_free && l->keygen_init && l->keygen && l->get_raw_private_key && l->get_raw_public_key &&
            l->new_raw_private_key && l->new_raw_public_key && l->derive_init && l->derive_set_peer && l->derive &&
            l->pkey_free;
  return all ? 1 : -1;
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

/// RAND_bytes: `n` bytes from OpenSSL's CSPRNG into `out`.
static inline int clibcrypto_random(uint8_t *out, size_t n) {
  if (clibcrypto_available() != 1) return -1;
  if (n == 0) return 1;
  if (out == NULL || n > INT_MAX) return -2;
  return clibcrypto_functions()->rand_bytes(out, (int)n) == 1 ? 1 : -2;
}

/// EVP_Digest with EVP_sha256: the SHA-256 of `n` bytes into `out` (32 bytes).
static inline int clibcrypto_sha256(const uint8_t *in, size_t n, uint8_t out[32]) {
  if (clibcrypto_available() != 1) return -1;
  const clibcrypto_library *l = clibcrypto_functions();
  unsigned int length = 0;
  if (l->digest(clibcrypto_nonnull(in), n, out, &length, l->sha256(), NULL) != 1 || length != 32) return -2;
  return 1;
}

/// HMAC with EVP_sha256: HMAC-SHA256 of `n` bytes under a key of `keylen` bytes into `out` (32 bytes).
static inline int clibcrypto_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *in, size_t n,
                                         uint8_t out[32]) {
  if (clibcrypto_available() != 1) return -1;
  if (keylen > INT_MAX) return -2;
  const clibcrypto_library *l = clibcrypto_functions();
  unsigned int length = 0;
  if (l->hmac(l->sha256(), clibcrypto_nonnull(key), (int)keylen, clibcrypto_nonnull(in), n, out, &length) == NULL ||
      length != 32)
    return -2;
  return 1;
}

/// AES-256-GCM encryption of `n` bytes under a 32-byte key and a 12-byte nonce, authenticating `aad` too: `n` bytes
/// of ciphertext into `out` and the 16-byte tag into `tag`.
static inline int clibcrypto_aes256gcm_seal(const uint8_t key[32], const uint8_t nonce[12], const uint8_t *aad,
                                            size_t aadlen, const uint8_t *in, size_t n, uint8_t *out, uint8_t tag[16]) {
  if (clibcrypto_available() != 1) return -1;
  if (aadlen > INT_MAX || n > INT_MAX || (n > 0 && (in == NULL || out == NULL))) return -2;
  const clibcrypto_library *l = clibcrypto_functions();
  clibcrypto_cipher_ctx *ctx = l->cipher_ctx_new();
  if (ctx == NULL) return -2;
  int status = -2, length = 0;
  unsigned char last[16];
  if (l->encrypt_init_ex(ctx, l->aes_256_gcm(), NULL, NULL, NULL) != 1) goto done;
  if (l->cipher_ctx_ctrl(ctx, CLIBCRYPTO_CTRL_GCM_SET_IVLEN, 12, NULL) != 1) goto done;
  if (l->encrypt_init_ex(ctx, NULL, NULL, key, nonce) != 1) goto done;
  if (aadlen > 0 && l->encrypt_update(ctx, NULL, &length, aad, (int)aadlen) != 1) goto done;
  if (n > 0 && (l->encrypt_update(ctx, out, &length, in, (int)n) != 1 || length != (int)n)) goto done;
  // GCM is a stream mode: the final call only computes the tag and writes no byte.
  if (l->encrypt_final_ex(ctx, last, &length) != 1 || length != 0) goto done;
  if (l->cipher_ctx_ctrl(ctx, CLIBCRYPTO_CTRL_GCM_GET_TAG, 16, tag) != 1) goto done;
  status = 1;
done:
  l->cipher_ctx_free(ctx);
  if (status != 1 && n > 0 && out != NULL) clibcrypto_wipe(out, n);
  return status;
}

/// AES-256-GCM decryption of `n` bytes into `out` (`n` bytes); 0 when the 16-byte tag does not verify (for this key,
/// nonce, aad and ciphertext), in which case `out` is overwritten with zeros.
static inline int clibcrypto_aes256gcm_open(const uint8_t key[32], const uint8_t nonce[12], const uint8_t *aad,
                                            size_t aadlen, const uint8_t *in, size_t n, const uint8_t tag[16],
                                            uint8_t *out) {
  if (clibcrypto_available() != 1) return -1;
  if (aadlen > INT_MAX || n > INT_MAX || (n > 0 && (in == NULL || out == NULL))) return -2;
  const clibcrypto_library *l = clibcrypto_functions();
  clibcrypto_cipher_ctx *ctx = l->cipher_ctx_new();
  if (ctx == NULL) return -2;
  int status = -2, length = 0;
  unsigned char last[16];
  unsigned char expected[16];
  for (int i = 0; i < 16; i++) expected[i] = tag[i];
  if (l->decrypt_init_ex(ctx, l->aes_256_gcm(), NULL, NULL, NULL) != 1) goto done;
  if (l->cipher_ctx_ctrl(ctx, CLIBCRYPTO_CTRL_GCM_SET_IVLEN, 12, NULL) != 1) goto done;
  if (l->decrypt_init_ex(ctx, NULL, NULL, key, nonce) != 1) goto done;
  if (aadlen > 0 && l->decrypt_update(ctx, NULL, &length, aad, (int)aadlen) != 1) goto done;
  if (n > 0 && (l->decrypt_update(ctx, out, &length, in, (int)n) != 1 || length != (int)n)) goto done;
  if (l->cipher_ctx_ctrl(ctx, CLIBCRYPTO_CTRL_GCM_SET_TAG, 16, expected) != 1) goto done;
  status = l->decrypt_final_ex(ctx, last, &length) > 0 && length == 0 ? 1 : 0;
done:
  l->cipher_ctx_free(ctx);
  if (status != 1 && n > 0 && out != NULL) clibcrypto_wipe(out, n);
  return status;
}

/// A fresh X25519 key pair: the 32-byte private key into `priv`, the 32-byte public key into `pub`.
static inline int clibcrypto_x25519_keypair(uint8_t priv[32], uint8_t pub[32]) {
  if (clibcrypto_available() != 1) return -1;
  const clibcrypto_library *l = clibcrypto_functions();
  clibcrypto_pkey_ctx *ctx = l->pkey_ctx_new_id(CLIBCRYPTO_NID_X25519, NULL);
  if (ctx == NULL) return -2;
  clibcrypto_pkey *pkey = NULL;
  int status = -2;
  size_t privlen = 32, publen = 32;
  if (l->keygen_init(ctx) <= 0 || l->keygen(ctx, &pkey) <= 0 || pkey == NULL) goto done;
  if (l->get_raw_private_key(pkey, priv, &privlen) != 1 || privlen != 32) goto done;
  if (l->get_raw_public_key(pkey, pub, &publen) != 1 || publen != 32) goto done;
  status = 1;
done:
  if (pkey != NULL) l->pkey_free(pkey);
  l->pkey_ctx_free(ctx);
  if (status != 1) {
    clibcrypto_wipe(priv, 32);
    clibcrypto_wipe(pub, 32);
  }
  return status;
}

/// X25519 (RFC 7748): the 32-byte shared secret of a private key and a peer's public key into `shared`; an all-zero
/// result (a peer key of small order) is a failure.
static inline int clibcrypto_x25519(const uint8_t priv[32], const uint8_t peer[32], uint8_t shared[32]) {
  if (clibcrypto_available() != 1) return -1;
  const clibcrypto_library *l = clibcrypto_functions();
  clibcrypto_pkey *key = l->new_raw_private_key(CLIBCRYPTO_NID_X25519, NULL, priv, 32);
  clibcrypto_pkey *peerkey = l->new_raw_public_key(CLIBCRYPTO_NID_X25519, NULL, peer, 32);
  clibcrypto_pkey_ctx *ctx = key != NULL ? l->pkey_ctx_new(key, NULL) : NULL;
  int status = -2;
  size_t length = 32;
  unsigned char any = 0;
  if (key == NULL || peerkey == NULL || ctx == NULL) goto done;
  if (l->derive_init(ctx) <= 0 || l->derive_set_peer(ctx, peerkey) <= 0) goto done;
  if (l->derive(ctx, shared, &length) <= 0 || length != 32) goto done;
  for (int i = 0; i < 32; i++) any |= shared[i];
  if (any != 0) status = 1;
done:
  if (ctx != NULL) l->pkey_ctx_free(ctx);
  if (peerkey != NULL) l->pkey_free(peerkey);
  if (key != NULL) l->pkey_free(key);
  if (status != 1) clibcrypto_wipe(shared, 32);
  return status;
}
#endif
