// CCrypt: libxcrypt (Debian's libcrypt-dev), for yescrypt passcode hashes like /etc/shadow's.
#ifndef CCRYPT_SHIM_H
#define CCRYPT_SHIM_H
#include <crypt.h>
#endif
