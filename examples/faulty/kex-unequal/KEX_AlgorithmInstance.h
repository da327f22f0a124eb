/* Faulty fixture kex-unequal: party B derives a secret differing from A's in one bit */
#ifndef KEX_ALGORITHM_INSTANCE_H
#define KEX_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "kex-unequal"

#include "kex_api.h"

#endif
