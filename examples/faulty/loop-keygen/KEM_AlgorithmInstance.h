/* Faulty fixture loop-keygen: infinite loop in kem_keygen */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "loop-keygen"

#include "kem_api.h"

#endif
