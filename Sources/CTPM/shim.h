// placeholder, replaced by the TPM shim
#ifndef CTPM_SHIM_H
#define CTPM_SHIM_H
#endif
