/* Instance sha3-256-ex of the NGCC Perf example hash (FIPS 202 SHA3-256). */
#ifndef CRYPTHASH_ALGORITHM_INSTANCE_H
#define CRYPTHASH_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "sha3-256-ex"
#define DIGEST_LEN_BITS 256

#include "hash_api.h"

#endif
