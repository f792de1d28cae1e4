// CTPM: tpm2-tss's ESAPI, for sealing a small secret (a keychain key) to one TPM 2.0.
//
// libtss2-esys.so.0, libtss2-tctildr.so.0 and libtss2-mu.so.0 are opened on first use (dlopen), not linked: a
// machine without tpm2-tss still loads the module, and an authentication that never seals pays nothing (ESAPI also
// brings in libcrypto). No tss2 header is needed: ESAPI's structures are large and their layout is the library's,
// so the inputs are written here in the TPM's own wire format (big-endian, TPM 2.0 Part 2) and turned into the
// library's structures by libtss2-mu's *_Unmarshal functions, into opaque, generously sized, aligned buffers; the
// outputs go back to wire format with *_Marshal and are freed with Esys_Free. The constants were checked against
// tpm2-tss 3.2's headers (tss2_tpm2_types.h, tss2_esys.h, tss2_common.h).
//
// Swift calls ctpm_seal and ctpm_unseal; each opens the TCTI, recreates the owner hierarchy's primary storage key
// (deterministic from the owner seed, so nothing stays loaded in the TPM), does its work and closes everything on
// every path. They return one of the CTPM_* statuses below.
#ifndef CTPM_SHIM_H
#define CTPM_SHIM_H
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

// Statuses returned by ctpm_seal and ctpm_unseal.
#define CTPM_OK 0
#define CTPM_LIBRARY_MISSING (-1) /* a library or one of its functions could not be found */
#define CTPM_UNREACHABLE (-2)     /* the TCTI could not be initialised or reached: no TPM there */
#define CTPM_REFUSED (-3)         /* a TPM command (or the TSS on its behalf) failed: the code is in *tpm_rc */
#define CTPM_MALFORMED_BLOB (-4)  /* the blob is not one ctpm_seal wrote */
#define CTPM_BUFFER_TOO_SMALL (-5) /* the output buffer is too small; *tpm_rc is CTPM_RC_INSUFFICIENT_BUFFER */

/// The largest secret a TPM seals (MAX_SYM_DATA in TPM 2.0 Part 2; tpm2-tss's TPM2_MAX_SYM_DATA is 256, the TPM's 128).
#define CTPM_MAX_SECRET 128
/// A blob capacity that always suffices: 4 + a marshalled TPM2B_PUBLIC (under 700) + a TPM2B_PRIVATE (under 1,600).
#define CTPM_MAX_BLOB 4096
/// The blob's first four bytes, "LAT1".
#define CTPM_BLOB_MAGIC "LAT1"

// ESAPI handles (tss2_esys.h).
#define CTPM_ESYS_TR_NONE 0xfffU
#define CTPM_ESYS_TR_PASSWORD 0x0ffU
#define CTPM_ESYS_TR_RH_OWNER 0x101U

// Algorithms and curves (tss2_tpm2_types.h: TPM2_ALG_*, TPM2_ECC_*).
#define CTPM_ALG_AES 0x0006
#define CTPM_ALG_KEYEDHASH 0x0008
#define CTPM_ALG_SHA256 0x000B
#define CTPM_ALG_NULL 0x0010
#define CTPM_ALG_ECC 0x0023
#define CTPM_ALG_CFB 0x0043
#define CTPM_ECC_NIST_P256 0x0003

// Object attributes (tss2_tpm2_types.h: TPMA_OBJECT_*).
#define CTPM_OBJECT_FIXEDTPM 0x00000002U
#define CTPM_OBJECT_FIXEDPARENT 0x00000010U
#define CTPM_OBJECT_SENSITIVEDATAORIGIN 0x00000020U
#define CTPM_OBJECT_USERWITHAUTH 0x00000040U
#define CTPM_OBJECT_NODA 0x00000400U
#define CTPM_OBJECT_RESTRICTED 0x00010000U
#define CTPM_OBJECT_DECRYPT 0x00020000U

// Response codes (tss2_common.h, tss2_tpm2_types.h). A code's layer is its bits 16-23; the TPM's own are layer 0.
#define CTPM_RC_LAYER_MASK 0x00ff0000U
#define CTPM_RC_TCTI_LAYER 0x000a0000U
/// TPM2_RC_SIZE|TPM2_RC_P|TPM2_RC_1: what the TPM answers TPM2_Create for sensitive data over MAX_SYM_DATA.
#define CTPM_RC_SECRET_TOO_LONG 0x000001d5U
/// TSS2_MU_RC_INSUFFICIENT_BUFFER: what *tpm_rc holds with CTPM_BUFFER_TOO_SMALL.
#define CTPM_RC_INSUFFICIENT_BUFFER 0x00090006U

/// Capacity of one opaque ESAPI structure. The largest used, TPM2B_PRIVATE, is 1,552 bytes in tpm2-tss 3.2
/// (TPM2B_PUBLIC 616, TPM2B_SENSITIVE_CREATE 326, TPML_PCR_SELECTION 132), and all are aligned to 4 at most.
#define CTPM_STRUCT_CAPACITY 4096
#define CTPM_OPAQUE(name) _Alignas(16) uint8_t name[CTPM_STRUCT_CAPACITY] = {0}

typedef uint32_t ctpm_rc;
typedef ctpm_rc (*ctpm_unmarshal_function)(const uint8_t *buffer, size_t size, size_t *offset, void *dest);
typedef ctpm_rc (*ctpm_marshal_function)(const void *src, uint8_t *buffer, size_t size, size_t *offset);

/// The tpm2-tss functions used, or NULL where they could not be found.
typedef struct {
  ctpm_rc (*tctildr_initialize)(const char *name_conf, void **tcti);
  void (*tctildr_finalize)(void **tcti);
  ctpm_rc (*esys_initialize)(void **esys, void *tcti, void *abi_version);
  void (*esys_finalize)(void **esys);
  ctpm_rc (*esys_create_primary)(void *esys, uint32_t hierarchy, uint32_t s1, uint32_t s2, uint32_t s3,
                                 const void *sensitive, const void *public_template, const void *outside_info,
                                 const void *creation_pcr, uint32_t *object, void **out_public, void **creation_data,
                                 void **creation_hash, void **creation_ticket);
  ctpm_rc (*esys_create)(void *esys, uint32_t parent, uint32_t s1, uint32_t s2, uint32_t s3, const void *sensitive,
                         const void *public_template, const void *outside_info, const void *creation_pcr,
                         void **out_private, void **out_public, void **creation_data, void **creation_hash,
                         void **creation_ticket);
  ctpm_rc (*esys_load)(void *esys, uint32_t parent, uint32_t s1, uint32_t s2, uint32_t s3, const void *private_part,
                       const void *public_part, uint32_t *object);
  ctpm_rc (*esys_unseal)(void *esys, uint32_t item, uint32_t s1, uint32_t s2, uint32_t s3, void **out_data);
  ctpm_rc (*esys_flush_context)(void *esys, uint32_t handle);
  void (*esys_free)(void *pointer);
  ctpm_unmarshal_function public_unmarshal;
  ctpm_marshal_function public_marshal;
  ctpm_unmarshal_function private_unmarshal;
  ctpm_marshal_function private_marshal;
  ctpm_unmarshal_function sensitive_create_unmarshal;
  ctpm_unmarshal_function data_unmarshal;
  ctpm_unmarshal_function pcr_selection_unmarshal;
  ctpm_marshal_function sensitive_data_marshal;
} ctpm_library;

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
#define CTPM_LOAD(library, field, name) l->field = (__typeof__(l->field))dlsym(library, name)
  CTPM_LOAD(tctildr, tctildr_initialize, "Tss2_TctiLdr_Initialize");
  CTPM_LOAD(tctildr, tctildr_finalize, "Tss2_TctiLdr_Finalize");
  CTPM_LOAD(esys, esys_initialize, "Esys_Initialize");
  CTPM_LOAD(esys, esys_finalize, "Esys_Finalize");
  CTPM_LOAD(esys, esys_create_primary, "Esys_CreatePrimary");
  CTPM_LOAD(esys, esys_create, "Esys_Create");
  CTPM_LOAD(esys, esys_load, "Esys_Load");
  CTPM_LOAD(esys, esys_unseal, "Esys_Unseal");
  CTPM_LOAD(esys, esys_flush_context, "Esys_FlushContext");
  CTPM_LOAD(esys, esys_free, "Esys_Free");
  CTPM_LOAD(mu, public_unmarshal, "Tss2_MU_TPM2B_PUBLIC_Unmarshal");
  CTPM_LOAD(mu, public_marshal, "Tss2_MU_TPM2B_PUBLIC_Marshal");
  CTPM_LOAD(mu, private_unmarshal, "Tss2_MU_TPM2B_PRIVATE_Unmarshal");
  CTPM_LOAD(mu, private_marshal, "Tss2_MU_TPM2B_PRIVATE_Marshal");
  CTPM_LOAD(mu, sensitive_create_unmarshal, "Tss2_MU_TPM2B_SENSITIVE_CREATE_Unmarshal");
  CTPM_LOAD(mu, data_unmarshal, "Tss2_MU_TPM2B_DATA_Unmarshal");
  CTPM_LOAD(mu, pcr_selection_unmarshal, "Tss2_MU_TPML_PCR_SELECTION_Unmarshal");
  CTPM_LOAD(mu, sensitive_data_marshal, "Tss2_MU_TPM2B_SENSITIVE_DATA_Marshal");
#undef CTPM_LOAD
}

/// The loaded functions (NULL members where missing), loading them on the first call.
static inline const ctpm_library *ctpm_functions(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, ctpm_load);
  return ctpm_state();
}

/// True when every function ctpm_seal and ctpm_unseal need was found.
static inline int ctpm_available(void) {
  const ctpm_library *l = ctpm_functions();
  return l->tctildr_initialize && l->tctildr_finalize && l->esys_initialize && l->esys_finalize &&
         l->esys_create_primary && l->esys_create && l->esys_load && l->esys_unseal && l->esys_flush_context &&
         l->esys_free && l->public_unmarshal && l->public_marshal && l->private_unmarshal && l->private_marshal &&
         l->sensitive_create_unmarshal && l->data_unmarshal && l->pcr_selection_unmarshal && l->sensitive_data_marshal;
}

/// Zeroes memory that held a secret, in a way the compiler keeps.
static inline void ctpm_wipe(void *pointer, size_t size) {
  if (pointer != NULL && size > 0) explicit_bzero(pointer, size);
}

// ---- Wire format -------------------------------------------------------------------------------------------

/// Big-endian writers: each appends at *at if it fits in `size`, and always advances *at (the caller checks once).
static inline void ctpm_put16(uint8_t *buffer, size_t size, size_t *at, uint16_t value) {
  if (*at + 2 <= size) {
    buffer[*at] = (uint8_t)(value >> 8);
    buffer[*at + 1] = (uint8_t)value;
  }
  *at += 2;
}
static inline void ctpm_put32(uint8_t *buffer, size_t size, size_t *at, uint32_t value) {
  ctpm_put16(buffer, size, at, (uint16_t)(value >> 16));
  ctpm_put16(buffer, size, at, (uint16_t)value);
}
static inline uint16_t ctpm_get16(const uint8_t *bytes) { return (uint16_t)((bytes[0] << 8) | bytes[1]); }

/// Writes the size of the `end - 2` bytes after a TPM2B's size field into it; returns `end`, or 0 if it overflowed.
static inline size_t ctpm_size_prefix(uint8_t *wire, size_t size, size_t end) {
  size_t at = 0;
  ctpm_put16(wire, size, &at, (uint16_t)(end - 2));
  return end <= size ? end : 0;
}

/// The owner hierarchy's standard ECC P-256 storage key, as a TPM2B_PUBLIC (26 bytes after the size).
static inline size_t ctpm_primary_template(uint8_t *wire, size_t size) {
  size_t at = 2;
  ctpm_put16(wire, size, &at, CTPM_ALG_ECC);    // type
  ctpm_put16(wire, size, &at, CTPM_ALG_SHA256); // nameAlg
  ctpm_put32(wire, size, &at,
             CTPM_OBJECT_RESTRICTED | CTPM_OBJECT_DECRYPT | CTPM_OBJECT_FIXEDTPM | CTPM_OBJECT_FIXEDPARENT |
                 CTPM_OBJECT_SENSITIVEDATAORIGIN | CTPM_OBJECT_USERWITHAUTH | CTPM_OBJECT_NODA);
  ctpm_put16(wire, size, &at, 0);                  // authPolicy: empty
  ctpm_put16(wire, size, &at, CTPM_ALG_AES);       // symmetric.algorithm
  ctpm_put16(wire, size, &at, 128);                // symmetric.keyBits
  ctpm_put16(wire, size, &at, CTPM_ALG_CFB);       // symmetric.mode
  ctpm_put16(wire, size, &at, CTPM_ALG_NULL);      // scheme
  ctpm_put16(wire, size, &at, CTPM_ECC_NIST_P256); // curveID
  ctpm_put16(wire, size, &at, CTPM_ALG_NULL);      // kdf
  ctpm_put16(wire, size, &at, 0);                  // unique.x: empty
  ctpm_put16(wire, size, &at, 0);                  // unique.y: empty
  return ctpm_size_prefix(wire, size, at);
}

/// A sealed-data object (KEYEDHASH, NULL scheme, no policy), as a TPM2B_PUBLIC (14 bytes after the size).
static inline size_t ctpm_sealed_template(uint8_t *wire, size_t size) {
  size_t at = 2;
  ctpm_put16(wire, size, &at, CTPM_ALG_KEYEDHASH); // type
  ctpm_put16(wire, size, &at, CTPM_ALG_SHA256);    // nameAlg
  ctpm_put32(wire, size, &at,
             CTPM_OBJECT_FIXEDTPM | CTPM_OBJECT_FIXEDPARENT | CTPM_OBJECT_USERWITHAUTH | CTPM_OBJECT_NODA);
  ctpm_put16(wire, size, &at, 0);             // authPolicy: empty
  ctpm_put16(wire, size, &at, CTPM_ALG_NULL); // scheme
  ctpm_put16(wire, size, &at, 0);             // unique: empty
  return ctpm_size_prefix(wire, size, at);
}

/// A TPM2B_SENSITIVE_CREATE: an empty userAuth and `n` bytes of data (none for a primary key).
static inline size_t ctpm_sensitive_create(uint8_t *wire, size_t size, const uint8_t *data, size_t n) {
  if (6 + n > size) return 0;
  size_t at = 2;
  ctpm_put16(wire, size, &at, 0);           // userAuth: empty
  ctpm_put16(wire, size, &at, (uint16_t)n); // data.size
  if (n > 0) memcpy(wire + at, data, n);
  return ctpm_size_prefix(wire, size, at + n);
}

// ---- One ESAPI connection ----------------------------------------------------------------------------------

/// A TCTI, an ESAPI context on it, and the primary key, each released by ctpm_close when set (NULL or
/// CTPM_ESYS_TR_NONE when not).
typedef struct {
  void *tcti;
  void *esys;
  uint32_t primary;
} ctpm_connection;

/// CTPM_UNREACHABLE for a failure of the transport (the TCTI layer), CTPM_REFUSED for anything else.
static inline int ctpm_failure(ctpm_rc rc, uint32_t *tpm_rc) {
  *tpm_rc = rc;
  return (rc & CTPM_RC_LAYER_MASK) == CTPM_RC_TCTI_LAYER ? CTPM_UNREACHABLE : CTPM_REFUSED;
}

/// Releases what `c` holds: the primary key, the ESAPI context, the TCTI.
static inline void ctpm_close(ctpm_connection *c) {
  const ctpm_library *l = ctpm_functions();
  if (c->primary != CTPM_ESYS_TR_NONE) l->esys_flush_context(c->esys, c->primary);
  if (c->esys != NULL) l->esys_finalize(&c->esys);
  if (c->tcti != NULL) l->tctildr_finalize(&c->tcti);
}

/// Unmarshals `n` wire bytes into an opaque structure; nonzero unless every byte was consumed (or `n` is 0).
static inline int ctpm_unmarshal(ctpm_unmarshal_function unmarshal, const uint8_t *wire, size_t n, void *dest) {
  size_t offset = 0;
  return n == 0 || unmarshal(wire, n, &offset, dest) != 0 || offset != n;
}

/// Unmarshals the creation inputs no object here uses: an empty TPM2B_DATA, a TPML_PCR_SELECTION of no PCR.
static inline int ctpm_creation_inputs(void *outside_info, void *creation_pcr) {
  static const uint8_t empty_data[2] = {0, 0};
  static const uint8_t no_pcrs[4] = {0, 0, 0, 0};
  const ctpm_library *l = ctpm_functions();
  return ctpm_unmarshal(l->data_unmarshal, empty_data, sizeof empty_data, outside_info) ||
         ctpm_unmarshal(l->pcr_selection_unmarshal, no_pcrs, sizeof no_pcrs, creation_pcr);
}

/// Opens the TCTI and ESAPI into `c` (which must start empty), and creates the primary storage key under the owner
/// hierarchy (empty owner auth); the caller closes `c` whatever this returns.
static inline int ctpm_open(const char *tcti, ctpm_connection *c, uint32_t *tpm_rc) {
  const ctpm_library *l = ctpm_functions();
  uint8_t wire[64];
  CTPM_OPAQUE(public_template);
  CTPM_OPAQUE(sensitive);
  CTPM_OPAQUE(outside_info);
  CTPM_OPAQUE(creation_pcr);
  // The templates are fixed: a library that refuses them is not one we know.
  if (ctpm_unmarshal(l->public_unmarshal, wire, ctpm_primary_template(wire, sizeof wire), public_template) ||
      ctpm_unmarshal(l->sensitive_create_unmarshal, wire, ctpm_sensitive_create(wire, sizeof wire, NULL, 0),
                     sensitive) ||
      ctpm_creation_inputs(outside_info, creation_pcr))
    return CTPM_LIBRARY_MISSING;
  void *context = NULL;
  ctpm_rc rc = l->tctildr_initialize(tcti, &context);
  if (rc != 0) {
    *tpm_rc = rc;
    return CTPM_UNREACHABLE;
  }
  c->tcti = context;
  context = NULL;
  if ((rc = l->esys_initialize(&context, c->tcti, NULL)) != 0) return ctpm_failure(rc, tpm_rc);
  c->esys = context;
  uint32_t primary = CTPM_ESYS_TR_NONE;
  rc = l->esys_create_primary(c->esys, CTPM_ESYS_TR_RH_OWNER, CTPM_ESYS_TR_PASSWORD, CTPM_ESYS_TR_NONE,
                              CTPM_ESYS_TR_NONE, sensitive, public_template, outside_info, creation_pcr, &primary, NULL,
                              NULL, NULL, NULL);
  if (rc != 0) return ctpm_failure(rc, tpm_rc);
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
  uint8_t wire[2 + 4 + CTPM_MAX_SECRET];
  CTPM_OPAQUE(sensitive);
  CTPM_OPAQUE(public_template);
  CTPM_OPAQUE(outside_info);
  CTPM_OPAQUE(creation_pcr);
  int failed = ctpm_unmarshal(l->sensitive_create_unmarshal, wire, ctpm_sensitive_create(wire, sizeof wire, secret, n),
                              sensitive);
  ctpm_wipe(wire, sizeof wire);
  if (failed || ctpm_unmarshal(l->public_unmarshal, wire, ctpm_sealed_template(wire, sizeof wire), public_template) ||
      ctpm_creation_inputs(outside_info, creation_pcr)) {
    ctpm_wipe(sensitive, sizeof sensitive);
    return CTPM_LIBRARY_MISSING;
  }

  ctpm_connection c = {NULL, NULL, CTPM_ESYS_TR_NONE};
  int status = ctpm_open(tcti, &c, tpm_rc);
  void *out_private = NULL;
  void *out_public = NULL;
  if (status == CTPM_OK) {
    ctpm_rc rc = l->esys_create(c.esys, c.primary, CTPM_ESYS_TR_PASSWORD, CTPM_ESYS_TR_NONE, CTPM_ESYS_TR_NONE,
                                sensitive, public_template, outside_info, creation_pcr, &out_private, &out_public, NULL,
                                NULL, NULL);
    if (rc != 0) status = ctpm_failure(rc, tpm_rc);
  }
  ctpm_wipe(sensitive, sizeof sensitive);
  if (status == CTPM_OK) {
    uint8_t scratch[CTPM_MAX_BLOB];
    size_t offset = 4;
    memcpy(scratch, CTPM_BLOB_MAGIC, 4);
    ctpm_rc rc = l->public_marshal(out_public, scratch, sizeof scratch, &offset);
    if (rc == 0) rc = l->private_marshal(out_private, scratch, sizeof scratch, &offset);
    if (rc != 0) {
      status = CTPM_REFUSED;
      *tpm_rc = rc;
    } else if (offset > cap) {
      status = CTPM_BUFFER_TOO_SMALL;
      *tpm_rc = CTPM_RC_INSUFFICIENT_BUFFER;
    } else {
      memcpy(blob, scratch, offset);
      *len = offset;
    }
  }
  if (out_private != NULL) l->esys_free(out_private);
  if (out_public != NULL) l->esys_free(out_public);
  ctpm_close(&c);
  return status;
}

/// Splits and unmarshals a blob into opaque TPM2B_PUBLIC and TPM2B_PRIVATE structures; CTPM_MALFORMED_BLOB unless
/// it is the magic, then each part's size and bytes, and nothing more.
static inline int ctpm_parse_blob(const uint8_t *blob, size_t len, void *public_part, void *private_part) {
  const ctpm_library *l = ctpm_functions();
  if (len < 4 + 2 + 2 || memcmp(blob, CTPM_BLOB_MAGIC, 4) != 0) return CTPM_MALFORMED_BLOB;
  size_t public_end = 4 + 2 + (size_t)ctpm_get16(blob + 4);
  if (public_end + 2 > len) return CTPM_MALFORMED_BLOB;
  size_t private_end = public_end + 2 + (size_t)ctpm_get16(blob + public_end);
  if (private_end != len || public_end == 4 + 2 || private_end == public_end + 2) return CTPM_MALFORMED_BLOB;
  if (ctpm_unmarshal(l->public_unmarshal, blob + 4, public_end - 4, public_part) ||
      ctpm_unmarshal(l->private_unmarshal, blob + public_end, private_end - public_end, private_part))
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
  CTPM_OPAQUE(public_part);
  CTPM_OPAQUE(private_part);
  int status = ctpm_parse_blob(blob, len, public_part, private_part);
  if (status != CTPM_OK) return status;

  ctpm_connection c = {NULL, NULL, CTPM_ESYS_TR_NONE};
  status = ctpm_open(tcti, &c, tpm_rc);
  uint32_t object = CTPM_ESYS_TR_NONE;
  if (status == CTPM_OK) {
    ctpm_rc rc = l->esys_load(c.esys, c.primary, CTPM_ESYS_TR_PASSWORD, CTPM_ESYS_TR_NONE, CTPM_ESYS_TR_NONE,
                              private_part, public_part, &object);
    if (rc != 0) {
      object = CTPM_ESYS_TR_NONE;
      status = ctpm_failure(rc, tpm_rc);
    }
  }
  void *data = NULL;
  if (status == CTPM_OK) {
    ctpm_rc rc = l->esys_unseal(c.esys, object, CTPM_ESYS_TR_PASSWORD, CTPM_ESYS_TR_NONE, CTPM_ESYS_TR_NONE, &data);
    if (rc != 0) {
      data = NULL;
      status = ctpm_failure(rc, tpm_rc);
    }
  }
  if (data != NULL) {
    // TPM2B_SENSITIVE_DATA marshals as its size then its bytes; so is it laid out (UINT16 size, BYTE buffer[]).
    uint8_t scratch[2 + 256];
    size_t offset = 0;
    ctpm_rc rc = l->sensitive_data_marshal(data, scratch, sizeof scratch, &offset);
    size_t n = offset >= 2 ? ctpm_get16(scratch) : 0;
    if (rc != 0 || offset != 2 + n) {
      status = CTPM_REFUSED;
      *tpm_rc = rc;
    } else if (n > cap) {
      status = CTPM_BUFFER_TOO_SMALL;
      *tpm_rc = CTPM_RC_INSUFFICIENT_BUFFER;
    } else {
      if (n > 0) memcpy(out, scratch + 2, n);
      *outlen = n;
    }
    ctpm_wipe(scratch, sizeof scratch);
    ctpm_wipe(data, rc == 0 && offset == 2 + n ? 2 + n : 2);
    l->esys_free(data);
  }
  if (object != CTPM_ESYS_TR_NONE) l->esys_flush_context(c.esys, object);
  ctpm_close(&c);
  return status;
}
#endif
