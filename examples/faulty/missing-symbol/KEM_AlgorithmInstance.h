/* Faulty fixture missing-symbol: kem_dec is not defined */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "missing-symbol"

#include "kem_api.h"

#endif
