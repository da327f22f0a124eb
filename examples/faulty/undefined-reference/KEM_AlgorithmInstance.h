/* Faulty fixture undefined-reference: kem_enc calls a function defined nowhere (link fails with --no-undefined) */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "undefined-reference"

#include "kem_api.h"

#endif
