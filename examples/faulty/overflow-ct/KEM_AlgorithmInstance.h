/* Faulty fixture overflow-ct: kem_enc writes 4 bytes past the ciphertext buffer */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "overflow-ct"

#include "kem_api.h"

#endif
