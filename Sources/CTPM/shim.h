// CTPM: tpm2-tss's ESAPI, for sealing a small secret (a keychain key) to one TPM 2.0.
//
// The libraries are opened on first use (library.h), and everything is typed by tpm2-tss's headers: the templates
// and inputs are the library's own structures (TPM2B_PUBLIC, TPM2B_SENSITIVE_CREATE, …) with the constants of
// tss2_tpm2_types.h, and the blob is written and read with libtss2-mu's Tss2_MU_*_Marshal and _Unmarshal.
//
// Swift calls ctpm_seal and ctpm_unseal; each opens the TCTI, recreates the owner hierarchy's primary storage key
// (deterministic from the owner seed, so nothing stays loaded in the TPM), does its work and closes everything on
// every path. They return one of the CTPM_* statuses below.
#ifndef CTPM_SHIM_H
#define CTPM_SHIM_H
#include <string.h>

#include "library.h"

// Statuses returned by ctpm_seal and ctpm_unseal.
#define CTPM_OK 0
#define CTPM_LIBRARY_MISSING (-1) /* a library or one of its functions could not be found */
#define CTPM_UNREACHABLE (-2)     /* the TCTI could not be initialised or reached: no TPM there */
#define CTPM_REFUSED (-3)         /* a TPM command (or the TSS on its behalf) failed: the code is in *tpm_rc */
#define CTPM_MALFORMED_BLOB (-4)  /* the blob is not one ctpm_seal wrote */
#define CTPM_BUFFER_TOO_SMALL (-5) /* the output buffer is too small; *tpm_rc is TSS2_MU_RC_INSUFFICIENT_BUFFER */

/// The largest secret a TPM seals (MAX_SYM_DATA in TPM 2.0 Part 2; tpm2-tss's TPM2_MAX_SYM_DATA is 256, the TPM's 128).
#define CTPM_MAX_SECRET 128
/// A blob capacity that always suffices: the magic, then a marshalled TPM2B_PUBLIC and TPM2B_PRIVATE.
#define CTPM_MAX_BLOB 4096
/// The blob's first four bytes, "LAT1".
#define CTPM_BLOB_MAGIC "LAT1"
/// What ctpm_seal answers for a secret over CTPM_MAX_SECRET, as the TPM answers TPM2_Create (0x1d5).
#define CTPM_RC_SECRET_TOO_LONG (TPM2_RC_SIZE | TPM2_RC_P | TPM2_RC_1)

_Static_assert(CTPM_MAX_SECRET <= sizeof(((TPM2B_SENSITIVE_DATA *)0)->buffer), "a secret fits TPM2B_SENSITIVE_DATA");
_Static_assert(4 + sizeof(TPM2B_PUBLIC) + sizeof(TPM2B_PRIVATE) <= CTPM_MAX_BLOB, "a blob fits CTPM_MAX_BLOB");

/// Zeroes memory that held a secret, in a way the compiler keeps.
static inline void ctpm_wipe(void *pointer, size_t size) {
  if (pointer != NULL && size > 0) explicit_bzero(pointer, size);
}

// ---- Templates ---------------------------------------------------------------------------------------------

/// The owner hierarchy's standard ECC P-256 storage key: restricted decryption, AES-128-CFB, no policy, empty
/// unique. The blob's parent: a template that changed by one bit would make another key and strand every blob.
static inline TPM2B_PUBLIC ctpm_primary_template(void) {
  TPM2B_PUBLIC wanted = {0};
  TPMT_PUBLIC *area = &wanted.publicArea;
  area->type = TPM2_ALG_ECC;
  area->nameAlg = TPM2_ALG_SHA256;
  area->objectAttributes = TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT | TPMA_OBJECT_FIXEDTPM |
                           TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
                           TPMA_OBJECT_NODA;
  area->parameters.eccDetail.symmetric.algorithm = TPM2_ALG_AES;
  area->parameters.eccDetail.symmetric.keyBits.aes = 128;
  area->parameters.eccDetail.symmetric.mode.aes = TPM2_ALG_CFB;
  area->parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
  area->parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
  area->parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
  return wanted;
}

/// A sealed-data object: KEYEDHASH with the NULL scheme, no policy, empty unique.
static inline TPM2B_PUBLIC ctpm_sealed_template(void) {
  TPM2B_PUBLIC wanted = {0};
  TPMT_PUBLIC *area = &wanted.publicArea;
  area->type = TPM2_ALG_KEYEDHASH;
  area->nameAlg = TPM2_ALG_SHA256;
  area->objectAttributes =
      TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA;
  area->parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL;
  return wanted;
}

// ---- One ESAPI connection ----------------------------------------------------------------------------------

/// A TCTI, an ESAPI context on it, and the primary key, each released by ctpm_close when set (NULL or ESYS_TR_NONE
/// when not).
typedef struct {
  TSS2_TCTI_CONTEXT *tcti;
  ESYS_CONTEXT *esys;
  ESYS_TR primary;
} ctpm_connection;

/// CTPM_UNREACHABLE for a failure of the transport (the TCTI layer), CTPM_REFUSED for anything else.
static inline int ctpm_failure(TSS2_RC rc, uint32_t *tpm_rc) {
  *tpm_rc = rc;
  return (rc & TSS2_RC_LAYER_MASK) == TSS2_TCTI_RC_LAYER ? CTPM_UNREACHABLE : CTPM_REFUSED;
}

/// Releases what `c` holds: the primary key, the ESAPI context, the TCTI.
static inline void ctpm_close(ctpm_connection *c) {
  const ctpm_library *l = ctpm_functions();
  if (c->primary != ESYS_TR_NONE) l->Esys_FlushContext(c->esys, c->primary);
  if (c->esys != NULL) l->Esys_Finalize(&c->esys);
  if (c->tcti != NULL) l->Tss2_TctiLdr_Finalize(&c->tcti);
}

/// Opens the TCTI and ESAPI into `c` (which must start empty), and creates the primary storage key under the owner
/// hierarchy (empty owner auth); the caller closes `c` whatever this returns.
static inline int ctpm_open(const char *tcti, ctpm_connection *c, uint32_t *tpm_rc) {
  const ctpm_library *l = ctpm_functions();
  TPM2B_PUBLIC public_template = ctpm_primary_template();
  TPM2B_SENSITIVE_CREATE sensitive = {0};  // no userAuth, no data
  TPM2B_DATA outside_info = {0};
  TPML_PCR_SELECTION creation_pcr = {0};
  TSS2_TCTI_CONTEXT *transport = NULL;
  TSS2_RC rc = l->Tss2_TctiLdr_Initialize(tcti, &transport);
  if (rc != TSS2_RC_SUCCESS) {
    *tpm_rc = rc;
    return CTPM_UNREACHABLE;
  }
  c->tcti = transport;
  ESYS_CONTEXT *context = NULL;
  if ((rc = l->Esys_Initialize(&context, c->tcti, NULL)) != TSS2_RC_SUCCESS) return ctpm_failure(rc, tpm_rc);
  c->esys = context;
  ESYS_TR primary = ESYS_TR_NONE;
  rc = l->Esys_CreatePrimary(c->esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &sensitive,
                             &public_template, &outside_info, &creation_pcr, &primary, NULL, NULL, NULL, NULL);
  if (rc != TSS2_RC_SUCCESS) return ctpm_failure(rc, tpm_rc);
  c->primary = primary;
  return CTPM_OK;
}

// ---- Seal and unseal ---------------------------------------------------------------------------------------

/// Seals `n` bytes (at most CTPM_MAX_SECRET) to the TPM at `tcti` (a tctildr string such as
/// "device:/dev/tpmrm0" or "swtpm:host=127.0.0.1,port=2321"). The blob ("LAT1" ‖ TPM2B_PUBLIC ‖ TPM2B_PRIVATE,
/// marshalled) goes into `blob`, its length into *len; CTPM_MAX_BLOB bytes always suffice.
static inline int ctpm_seal(const char *tcti, const uint8_t *secret, size_t n, uint8_t *blob, size_t cap, size_t *len,
                            uint32_t *tpm_rc) {
  *len = 0;
  *tpm_rc = 0;
  if (!ctpm_available()) return CTPM_LIBRARY_MISSING;
  if (n > CTPM_MAX_SECRET) {
    *tpm_rc = CTPM_RC_SECRET_TOO_LONG;
    return CTPM_REFUSED;
  }
  const ctpm_library *l = ctpm_functions();
  TPM2B_SENSITIVE_CREATE sensitive = {0};  // no userAuth; the secret as data
  sensitive.sensitive.data.size = (UINT16)n;
  if (n > 0) memcpy(sensitive.sensitive.data.buffer, secret, n);
  TPM2B_PUBLIC public_template = ctpm_sealed_template();
  TPM2B_DATA outside_info = {0};
  TPML_PCR_SELECTION creation_pcr = {0};

  ctpm_connection c = {NULL, NULL, ESYS_TR_NONE};
  int status = ctpm_open(tcti, &c, tpm_rc);
  TPM2B_PRIVATE *out_private = NULL;
  TPM2B_PUBLIC *out_public = NULL;
  if (status == CTPM_OK) {
    TSS2_RC rc = l->Esys_Create(c.esys, c.primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &sensitive,
                                &public_template, &outside_info, &creation_pcr, &out_private, &out_public, NULL, NULL,
                                NULL);
    if (rc != TSS2_RC_SUCCESS) status = ctpm_failure(rc, tpm_rc);
  }
  ctpm_wipe(&sensitive, sizeof sensitive);
  if (status == CTPM_OK) {
    uint8_t scratch[CTPM_MAX_BLOB];
    size_t offset = 4;
    memcpy(scratch, CTPM_BLOB_MAGIC, 4);
    TSS2_RC rc = l->Tss2_MU_TPM2B_PUBLIC_Marshal(out_public, scratch, sizeof scratch, &offset);
    if (rc == TSS2_RC_SUCCESS) rc = l->Tss2_MU_TPM2B_PRIVATE_Marshal(out_private, scratch, sizeof scratch, &offset);
    if (rc != TSS2_RC_SUCCESS) {
      status = CTPM_REFUSED;
      *tpm_rc = rc;
    } else if (offset > cap) {
      status = CTPM_BUFFER_TOO_SMALL;
      *tpm_rc = TSS2_MU_RC_INSUFFICIENT_BUFFER;
    } else {
      memcpy(blob, scratch, offset);
      *len = offset;
    }
  }
  if (out_private != NULL) l->Esys_Free(out_private);
  if (out_public != NULL) l->Esys_Free(out_public);
  ctpm_close(&c);
  return status;
}

/// The end of the TPM2B at `offset` (its 2-byte size, then that many bytes, at least one) within `len` bytes, or 0
/// when it is empty or runs past them.
static inline size_t ctpm_tpm2b_end(const ctpm_library *l, const uint8_t *blob, size_t len, size_t offset) {
  UINT16 size = 0;
  if (l->Tss2_MU_UINT16_Unmarshal(blob, len, &offset, &size) != TSS2_RC_SUCCESS) return 0;
  return size > 0 && size <= len - offset ? offset + size : 0;
}

/// Splits and unmarshals a blob into its TPM2B_PUBLIC and TPM2B_PRIVATE (which must start zeroed);
/// CTPM_MALFORMED_BLOB unless it is the magic, then two non-empty TPM2Bs whose contents unmarshal to exactly their
/// sizes, and nothing more.
static inline int ctpm_parse_blob(const uint8_t *blob, size_t len, TPM2B_PUBLIC *public_part,
                                  TPM2B_PRIVATE *private_part) {
  const ctpm_library *l = ctpm_functions();
  if (len < 4 || memcmp(blob, CTPM_BLOB_MAGIC, 4) != 0) return CTPM_MALFORMED_BLOB;
  // Each TPM2B is unmarshalled from a buffer that ends where its size field says, so that a size that disagrees
  // with its contents shows as an offset short of that end (libtss2-mu itself does not compare them).
  size_t offset = 4;
  size_t public_end = ctpm_tpm2b_end(l, blob, len, offset);
  if (public_end == 0 || l->Tss2_MU_TPM2B_PUBLIC_Unmarshal(blob, public_end, &offset, public_part) != 0 ||
      offset != public_end)
    return CTPM_MALFORMED_BLOB;
  size_t private_end = ctpm_tpm2b_end(l, blob, len, offset);
  if (private_end != len || l->Tss2_MU_TPM2B_PRIVATE_Unmarshal(blob, private_end, &offset, private_part) != 0 ||
      offset != private_end)
    return CTPM_MALFORMED_BLOB;
  return CTPM_OK;
}

/// Unseals a blob ctpm_seal wrote with the TPM at `tcti`: the secret goes into `out`, its length into *outlen.
/// Only the TPM that sealed it can (its owner seed derives the primary key that protects the blob).
static inline int ctpm_unseal(const char *tcti, const uint8_t *blob, size_t len, uint8_t *out, size_t cap,
                              size_t *outlen, uint32_t *tpm_rc) {
  *outlen = 0;
  *tpm_rc = 0;
  if (!ctpm_available()) return CTPM_LIBRARY_MISSING;
  const ctpm_library *l = ctpm_functions();
  TPM2B_PUBLIC public_part = {0};
  TPM2B_PRIVATE private_part = {0};
  int status = ctpm_parse_blob(blob, len, &public_part, &private_part);
  if (status != CTPM_OK) return status;

  ctpm_connection c = {NULL, NULL, ESYS_TR_NONE};
  status = ctpm_open(tcti, &c, tpm_rc);
  ESYS_TR object = ESYS_TR_NONE;
  if (status == CTPM_OK) {
    TSS2_RC rc = l->Esys_Load(c.esys, c.primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &private_part,
                              &public_part, &object);
    if (rc != TSS2_RC_SUCCESS) {
      object = ESYS_TR_NONE;
      status = ctpm_failure(rc, tpm_rc);
    }
  }
  TPM2B_SENSITIVE_DATA *data = NULL;
  if (status == CTPM_OK) {
    TSS2_RC rc = l->Esys_Unseal(c.esys, object, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &data);
    if (rc != TSS2_RC_SUCCESS) {
      data = NULL;
      status = ctpm_failure(rc, tpm_rc);
    }
  }
  if (data != NULL) {
    size_t n = data->size <= sizeof data->buffer ? data->size : sizeof data->buffer;
    if (n > cap) {
      status = CTPM_BUFFER_TOO_SMALL;
      *tpm_rc = TSS2_MU_RC_INSUFFICIENT_BUFFER;
    } else {
      if (n > 0) memcpy(out, data->buffer, n);
      *outlen = n;
    }
    ctpm_wipe(data->buffer, n);
    l->Esys_Free(data);
  }
  if (object != ESYS_TR_NONE) l->Esys_FlushContext(c.esys, object);
  ctpm_close(&c);
  return status;
}
#endif
