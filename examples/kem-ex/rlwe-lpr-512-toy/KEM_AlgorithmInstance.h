/* Instance rlwe-lpr-512-toy of the NGCC Perf example KEM (toy parameters). */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "rlwe-lpr-512-toy"
#define RLWE_N 512

#include "kem_api.h"

#endif
