/* Instance sha3-512-ex of the NGCC Perf example hash (FIPS 202 SHA3-512). */
#ifndef CRYPTHASH_ALGORITHM_INSTANCE_H
#define CRYPTHASH_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "sha3-512-ex"
#define DIGEST_LEN_BITS 512

#include "hash_api.h"

#endif
