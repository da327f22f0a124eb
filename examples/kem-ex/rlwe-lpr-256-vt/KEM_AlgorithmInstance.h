/* Instance rlwe-lpr-256-vt of the NGCC Perf example KEM: rlwe-lpr-256-toy with a decapsulation
 * whose time depends on the ciphertext, on purpose (see RLWE_VARIABLE_TIME_DEC in kem.c). Same
 * keys, ciphertexts and shared secrets as rlwe-lpr-256-toy, so the same KAT file. */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "rlwe-lpr-256-vt"
#define RLWE_N 256
#define RLWE_VARIABLE_TIME_DEC 1

#include "kem_api.h"

#endif
