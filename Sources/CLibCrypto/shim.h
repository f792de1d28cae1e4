// CLibCrypto: the OpenSSL libcrypto calls the keychain makes (AES-256-GCM, X25519, SHA-256, HMAC-SHA256) and the
// P-256 keys of Apple's SecKey (p256.h).
//
// libcrypto.so.3 is opened on first use (dlopen), not linked; the function table and its loader are in library.h,
// typed by OpenSSL's own headers (libssl-dev, a build dependency), so the compiler checks every call. Only calls
// that are not variadic are used. Every wrapper returns 1 on success, 0 when authentication failed (a GCM tag or
// a signature that does not verify), -1 when the library or one of its functions is missing (clibcrypto_available
// says so first), -2 on any other failure and -3 when key bytes are not a valid key, so every caller fails closed.
// Buffers of length zero may be passed as NULL.
#ifndef CLIBCRYPTO_SHIM_H
#define CLIBCRYPTO_SHIM_H
#include "library.h"

/// RAND_bytes: `n` bytes from OpenSSL's CSPRNG into `out`.
static inline int clibcrypto_random(uint8_t *out, size_t n) {
  if (clibcrypto_available() != 1) return -1;
  if (n == 0) return 1;
  if (out == NULL || n > INT_MAX) return -2;
  return clibcrypto_functions()->RAND_bytes(out, (int)n) == 1 ? 1 : -2;
}

/// EVP_Digest with EVP_sha256: the SHA-256 of `n` bytes into `out` (32 bytes).
static inline int clibcrypto_sha256(const uint8_t *in, size_t n, uint8_t out[32]) {
  if (clibcrypto_available() != 1) return -1;
  const clibcrypto_library *l = clibcrypto_functions();
  unsigned int length = 0;
  if (l->EVP_Digest(clibcrypto_nonnull(in), n, out, &length, l->EVP_sha256(), NULL) != 1 || length != 32) return -2;
  return 1;
}

/// HMAC with EVP_sha256: HMAC-SHA256 of `n` bytes under a key of `keylen` bytes into `out` (32 bytes).
static inline int clibcrypto_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *in, size_t n,
                                         uint8_t out[32]) {
  if (clibcrypto_available() != 1) return -1;
  if (keylen > INT_MAX) return -2;
  const clibcrypto_library *l = clibcrypto_functions();
  unsigned int length = 0;
  if (l->HMAC(l->EVP_sha256(), clibcrypto_nonnull(key), (int)keylen, clibcrypto_nonnull(in), n, out, &length) == NULL ||
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
  EVP_CIPHER_CTX *ctx = l->EVP_CIPHER_CTX_new();
  if (ctx == NULL) return -2;
  int status = -2, length = 0;
  unsigned char last[16];
  if (l->EVP_EncryptInit_ex(ctx, l->EVP_aes_256_gcm(), NULL, NULL, NULL) != 1) goto done;
  if (l->EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) != 1) goto done;
  if (l->EVP_EncryptInit_ex(ctx, NULL, NULL, key, nonce) != 1) goto done;
  if (aadlen > 0 && l->EVP_EncryptUpdate(ctx, NULL, &length, aad, (int)aadlen) != 1) goto done;
  if (n > 0 && (l->EVP_EncryptUpdate(ctx, out, &length, in, (int)n) != 1 || length != (int)n)) goto done;
  // GCM is a stream mode: the final call only computes the tag and writes no byte.
  if (l->EVP_EncryptFinal_ex(ctx, last, &length) != 1 || length != 0) goto done;
  if (l->EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1) goto done;
  status = 1;
done:
  l->EVP_CIPHER_CTX_free(ctx);
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
  EVP_CIPHER_CTX *ctx = l->EVP_CIPHER_CTX_new();
  if (ctx == NULL) return -2;
  int status = -2, length = 0;
  unsigned char last[16];
  unsigned char expected[16];
  for (int i = 0; i < 16; i++) expected[i] = tag[i];
  if (l->EVP_DecryptInit_ex(ctx, l->EVP_aes_256_gcm(), NULL, NULL, NULL) != 1) goto done;
  if (l->EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) != 1) goto done;
  if (l->EVP_DecryptInit_ex(ctx, NULL, NULL, key, nonce) != 1) goto done;
  if (aadlen > 0 && l->EVP_DecryptUpdate(ctx, NULL, &length, aad, (int)aadlen) != 1) goto done;
  if (n > 0 && (l->EVP_DecryptUpdate(ctx, out, &length, in, (int)n) != 1 || length != (int)n)) goto done;
  if (l->EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, expected) != 1) goto done;
  status = l->EVP_DecryptFinal_ex(ctx, last, &length) > 0 && length == 0 ? 1 : 0;
done:
  l->EVP_CIPHER_CTX_free(ctx);
  if (status != 1 && n > 0 && out != NULL) clibcrypto_wipe(out, n);
  return status;
}

/// A fresh X25519 key pair: the 32-byte private key into `priv`, the 32-byte public key into `pub`.
static inline int clibcrypto_x25519_keypair(uint8_t priv[32], uint8_t pub[32]) {
  if (clibcrypto_available() != 1) return -1;
  const clibcrypto_library *l = clibcrypto_functions();
  EVP_PKEY_CTX *ctx = l->EVP_PKEY_CTX_new_id(NID_X25519, NULL);
  if (ctx == NULL) return -2;
  EVP_PKEY *pkey = NULL;
  int status = -2;
  size_t privlen = 32, publen = 32;
  if (l->EVP_PKEY_keygen_init(ctx) <= 0 || l->EVP_PKEY_keygen(ctx, &pkey) <= 0 || pkey == NULL) goto done;
  if (l->EVP_PKEY_get_raw_private_key(pkey, priv, &privlen) != 1 || privlen != 32) goto done;
  if (l->EVP_PKEY_get_raw_public_key(pkey, pub, &publen) != 1 || publen != 32) goto done;
  status = 1;
done:
  if (pkey != NULL) l->EVP_PKEY_free(pkey);
  l->EVP_PKEY_CTX_free(ctx);
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
  EVP_PKEY *key = l->EVP_PKEY_new_raw_private_key(NID_X25519, NULL, priv, 32);
  EVP_PKEY *peerkey = l->EVP_PKEY_new_raw_public_key(NID_X25519, NULL, peer, 32);
  EVP_PKEY_CTX *ctx = key != NULL ? l->EVP_PKEY_CTX_new(key, NULL) : NULL;
  int status = -2;
  size_t length = 32;
  unsigned char any = 0;
  if (key == NULL || peerkey == NULL || ctx == NULL) goto done;
  if (l->EVP_PKEY_derive_init(ctx) <= 0 || l->EVP_PKEY_derive_set_peer(ctx, peerkey) <= 0) goto done;
  if (l->EVP_PKEY_derive(ctx, shared, &length) <= 0 || length != 32) goto done;
  for (int i = 0; i < 32; i++) any |= shared[i];
  if (any != 0) status = 1;
done:
  if (ctx != NULL) l->EVP_PKEY_CTX_free(ctx);
  if (peerkey != NULL) l->EVP_PKEY_free(peerkey);
  if (key != NULL) l->EVP_PKEY_free(key);
  if (status != 1) clibcrypto_wipe(shared, 32);
  return status;
}

#include "p256.h"
#endif
