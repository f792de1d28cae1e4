// CLibCrypto's P-256 (secp256r1, prime256v1): the key pairs, ECDSA-SHA256 signatures and ECDH that Apple's SecKey
// and LAPrivateKey use, through the table in library.h. Status values as in shim.h.
//
// A private key is its 32-byte big-endian scalar d, 0 < d < n; a public key is the 65-byte uncompressed X9.63
// point 04 ‖ X ‖ Y, as SecKeyCopyExternalRepresentation gives it. Keys are rebuilt from those bytes for every call
// with EVP_PKEY_fromdata, after the checks OpenSSL's import leaves to the caller here: a scalar out of range, or
// bytes that are not an uncompressed point on the curve, are -3, never a crash.
#ifndef CLIBCRYPTO_P256_H
#define CLIBCRYPTO_P256_H
#include <string.h>

#include "library.h"

/// The length of a private key (the scalar), a public key (04 ‖ X ‖ Y), a SHA-256 digest, and the longest
/// DER-encoded ECDSA signature (ECDSA_size for P-256).
#define CLIBCRYPTO_P256_PRIVATE_KEY 32
#define CLIBCRYPTO_P256_PUBLIC_KEY 65
#define CLIBCRYPTO_P256_DIGEST 32
#define CLIBCRYPTO_P256_MAX_SIGNATURE 72

/// Ends a wrapper: on failure, clears what libcrypto queued on this thread's error queue (shared with a host that
/// uses libcrypto itself, such as sshd), and returns `status`.
static inline int clibcrypto_p256_done(const clibcrypto_library *l, int status) {
  if (status != 1) l->ERR_clear_error();
  return status;
}

/// An EC key from OpenSSL parameters: the curve, the public point and, when `d` is set, the private scalar.
static inline EVP_PKEY *clibcrypto_p256_fromdata(const clibcrypto_library *l, const uint8_t pub[65], const BIGNUM *d) {
  char group[] = SN_X9_62_prime256v1;
  unsigned char scalar[CLIBCRYPTO_P256_PRIVATE_KEY];  // OSSL_PARAM integers are in native byte order
  OSSL_PARAM params[4];
  int count = 0;
  params[count++] = l->OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0);
  params[count++] =
      l->OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)pub, CLIBCRYPTO_P256_PUBLIC_KEY);
  if (d != NULL) {
    if (l->BN_bn2nativepad(d, scalar, sizeof scalar) != (int)sizeof scalar) return NULL;
    params[count++] = l->OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_PRIV_KEY, scalar, sizeof scalar);
  }
  params[count] = l->OSSL_PARAM_construct_end();
  EVP_PKEY_CTX *ctx = l->EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
  EVP_PKEY *pkey = NULL;
  if (ctx != NULL && l->EVP_PKEY_fromdata_init(ctx) == 1 &&
      l->EVP_PKEY_fromdata(ctx, &pkey, d != NULL ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) != 1)
    pkey = NULL;
  if (ctx != NULL) l->EVP_PKEY_CTX_free(ctx);
  clibcrypto_wipe(scalar, sizeof scalar);
  return pkey;
}

/// The key pair of a 32-byte private key into *pkey, its public key into `pub`; -3 unless 0 < d < n.
static inline int clibcrypto_p256_private(const clibcrypto_library *l, const uint8_t priv[32], EVP_PKEY **pkey,
                                          uint8_t pub[65]) {
  EC_GROUP *group = l->EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
  EC_POINT *point = group != NULL ? l->EC_POINT_new(group) : NULL;
  BIGNUM *d = point != NULL ? l->BN_bin2bn(priv, CLIBCRYPTO_P256_PRIVATE_KEY, NULL) : NULL;
  int status = -2;
  if (d == NULL) goto done;
  if (l->BN_is_zero(d) || l->BN_cmp(d, l->EC_GROUP_get0_order(group)) >= 0) {
    status = -3;
    goto done;
  }
  // Q = d·G, encoded uncompressed.
  if (l->EC_POINT_mul(group, point, d, NULL, NULL, NULL) != 1) goto done;
  if (l->EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, pub, CLIBCRYPTO_P256_PUBLIC_KEY, NULL) !=
      CLIBCRYPTO_P256_PUBLIC_KEY)
    goto done;
  *pkey = clibcrypto_p256_fromdata(l, pub, d);
  if (*pkey != NULL) status = 1;
done:
  if (d != NULL) l->BN_clear_free(d);
  if (point != NULL) l->EC_POINT_free(point);
  if (group != NULL) l->EC_GROUP_free(group);
  return status;
}

/// The public key of 65 bytes into *pkey; -3 unless they are 04 ‖ X ‖ Y for a point on the curve.
static inline int clibcrypto_p256_public(const clibcrypto_library *l, const uint8_t pub[65], EVP_PKEY **pkey) {
  if (pub[0] != POINT_CONVERSION_UNCOMPRESSED) return -3;
  EC_GROUP *group = l->EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
  EC_POINT *point = group != NULL ? l->EC_POINT_new(group) : NULL;
  int status = -2;
  if (point == NULL) goto done;
  // EC_POINT_oct2point refuses coordinates of p or more, and a point off the curve.
  if (l->EC_POINT_oct2point(group, point, pub, CLIBCRYPTO_P256_PUBLIC_KEY, NULL) != 1) {
    status = -3;
    goto done;
  }
  *pkey = clibcrypto_p256_fromdata(l, pub, NULL);
  if (*pkey != NULL) status = 1;
done:
  if (point != NULL) l->EC_POINT_free(point);
  if (group != NULL) l->EC_GROUP_free(group);
  return status;
}

/// A fresh key pair (EVP_PKEY_keygen on P-256): the 32-byte private key into `priv`, the public key into `pub`.
static inline int clibcrypto_p256_generate(uint8_t priv[32], uint8_t pub[65]) {
  if (clibcrypto_available() != 1) return -1;
  const clibcrypto_library *l = clibcrypto_functions();
  EVP_PKEY_CTX *ctx = l->EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
  EVP_PKEY *pkey = NULL;
  BIGNUM *d = NULL;
  size_t length = 0;
  int status = -2;
  if (ctx == NULL || l->EVP_PKEY_keygen_init(ctx) != 1) goto done;
  if (l->EVP_PKEY_CTX_set_group_name(ctx, SN_X9_62_prime256v1) != 1) goto done;
  if (l->EVP_PKEY_keygen(ctx, &pkey) != 1 || pkey == NULL) goto done;
  if (l->EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_PRIV_KEY, &d) != 1) goto done;
  if (l->BN_bn2binpad(d, priv, CLIBCRYPTO_P256_PRIVATE_KEY) != CLIBCRYPTO_P256_PRIVATE_KEY) goto done;
  if (l->EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_PUB_KEY, pub, CLIBCRYPTO_P256_PUBLIC_KEY, &length) != 1)
    goto done;
  if (length == CLIBCRYPTO_P256_PUBLIC_KEY && pub[0] == POINT_CONVERSION_UNCOMPRESSED) status = 1;
done:
  if (d != NULL) l->BN_clear_free(d);
  if (pkey != NULL) l->EVP_PKEY_free(pkey);
  if (ctx != NULL) l->EVP_PKEY_CTX_free(ctx);
  if (status != 1) {
    clibcrypto_wipe(priv, CLIBCRYPTO_P256_PRIVATE_KEY);
    clibcrypto_wipe(pub, CLIBCRYPTO_P256_PUBLIC_KEY);
  }
  return clibcrypto_p256_done(l, status);
}

/// The public key (04 ‖ X ‖ Y) of a 32-byte private key into `pub`.
static inline int clibcrypto_p256_public_key(const uint8_t priv[32], uint8_t pub[65]) {
  if (clibcrypto_available() != 1) return -1;
  const clibcrypto_library *l = clibcrypto_functions();
  EVP_PKEY *pkey = NULL;
  int status = clibcrypto_p256_private(l, priv, &pkey, pub);
  if (pkey != NULL) l->EVP_PKEY_free(pkey);
  if (status != 1) clibcrypto_wipe(pub, CLIBCRYPTO_P256_PUBLIC_KEY);
  return clibcrypto_p256_done(l, status);
}

/// ECDSA with a 32-byte private key, DER-encoded into `sig` (CLIBCRYPTO_P256_MAX_SIGNATURE bytes) and its length
/// into *siglen: over the SHA-256 of `n` bytes when `prehashed` is 0, over `n` bytes that are already a SHA-256
/// digest (n must be 32) when it is 1.
static inline int clibcrypto_p256_sign(const uint8_t priv[32], const uint8_t *in, size_t n, int prehashed,
                                       uint8_t sig[72], size_t *siglen) {
  *siglen = 0;
  if (clibcrypto_available() != 1) return -1;
  if (prehashed && (n != CLIBCRYPTO_P256_DIGEST || in == NULL)) return -2;
  const clibcrypto_library *l = clibcrypto_functions();
  EVP_PKEY *pkey = NULL;
  uint8_t pub[CLIBCRYPTO_P256_PUBLIC_KEY];
  int status = clibcrypto_p256_private(l, priv, &pkey, pub);
  size_t length = CLIBCRYPTO_P256_MAX_SIGNATURE;
  if (status == 1 && prehashed) {
    EVP_PKEY_CTX *ctx = l->EVP_PKEY_CTX_new(pkey, NULL);
    if (ctx == NULL || l->EVP_PKEY_sign_init(ctx) != 1 || l->EVP_PKEY_sign(ctx, sig, &length, in, n) != 1) status = -2;
    if (ctx != NULL) l->EVP_PKEY_CTX_free(ctx);
  } else if (status == 1) {
    EVP_MD_CTX *ctx = l->EVP_MD_CTX_new();
    if (ctx == NULL || l->EVP_DigestSignInit(ctx, NULL, l->EVP_sha256(), NULL, pkey) != 1 ||
        l->EVP_DigestSign(ctx, sig, &length, clibcrypto_nonnull(in), n) != 1)
      status = -2;
    if (ctx != NULL) l->EVP_MD_CTX_free(ctx);
  }
  if (status == 1 && length <= CLIBCRYPTO_P256_MAX_SIGNATURE) *siglen = length;
  else if (status == 1) status = -2;
  if (pkey != NULL) l->EVP_PKEY_free(pkey);
  return clibcrypto_p256_done(l, status);
}

/// Checks a DER-encoded ECDSA signature of `siglen` bytes against a 65-byte public key, over the SHA-256 of `n`
/// bytes or (`prehashed`) over a 32-byte digest: 1 when it verifies, 0 when it does not or is not DER.
static inline int clibcrypto_p256_verify(const uint8_t pub[65], const uint8_t *in, size_t n, int prehashed,
                                         const uint8_t *sig, size_t siglen) {
  if (clibcrypto_available() != 1) return -1;
  if (prehashed && (n != CLIBCRYPTO_P256_DIGEST || in == NULL)) return -2;
  const clibcrypto_library *l = clibcrypto_functions();
  EVP_PKEY *pkey = NULL;
  int status = clibcrypto_p256_public(l, pub, &pkey);
  if (status == 1 && (sig == NULL || siglen == 0 || siglen > CLIBCRYPTO_P256_MAX_SIGNATURE)) {
    status = 0;
  } else if (status == 1 && prehashed) {
    EVP_PKEY_CTX *ctx = l->EVP_PKEY_CTX_new(pkey, NULL);
    if (ctx == NULL || l->EVP_PKEY_verify_init(ctx) != 1) status = -2;
    else status = l->EVP_PKEY_verify(ctx, sig, siglen, in, n) == 1 ? 1 : 0;
    if (ctx != NULL) l->EVP_PKEY_CTX_free(ctx);
  } else if (status == 1) {
    EVP_MD_CTX *ctx = l->EVP_MD_CTX_new();
    if (ctx == NULL || l->EVP_DigestVerifyInit(ctx, NULL, l->EVP_sha256(), NULL, pkey) != 1) status = -2;
    else status = l->EVP_DigestVerify(ctx, sig, siglen, clibcrypto_nonnull(in), n) == 1 ? 1 : 0;
    if (ctx != NULL) l->EVP_MD_CTX_free(ctx);
  }
  if (pkey != NULL) l->EVP_PKEY_free(pkey);
  return clibcrypto_p256_done(l, status);
}

/// ECDH: the 32-byte shared secret (the X coordinate of d·Q) of a private key and a peer's public key into `shared`.
static inline int clibcrypto_p256_ecdh(const uint8_t priv[32], const uint8_t peer[65], uint8_t shared[32]) {
  if (clibcrypto_available() != 1) return -1;
  const clibcrypto_library *l = clibcrypto_functions();
  EVP_PKEY *key = NULL;
  EVP_PKEY *peerkey = NULL;
  EVP_PKEY_CTX *ctx = NULL;
  uint8_t pub[CLIBCRYPTO_P256_PUBLIC_KEY];
  size_t length = CLIBCRYPTO_P256_PRIVATE_KEY;
  int status = clibcrypto_p256_private(l, priv, &key, pub);
  if (status == 1) status = clibcrypto_p256_public(l, peer, &peerkey);
  if (status != 1) goto done;
  status = -2;
  if ((ctx = l->EVP_PKEY_CTX_new(key, NULL)) == NULL) goto done;
  if (l->EVP_PKEY_derive_init(ctx) != 1 || l->EVP_PKEY_derive_set_peer(ctx, peerkey) != 1) goto done;
  if (l->EVP_PKEY_derive(ctx, shared, &length) != 1 || length != CLIBCRYPTO_P256_PRIVATE_KEY) goto done;
  status = 1;
done:
  if (ctx != NULL) l->EVP_PKEY_CTX_free(ctx);
  if (peerkey != NULL) l->EVP_PKEY_free(peerkey);
  if (key != NULL) l->EVP_PKEY_free(key);
  if (status != 1) clibcrypto_wipe(shared, CLIBCRYPTO_P256_PRIVATE_KEY);
  return clibcrypto_p256_done(l, status);
}
#endif
