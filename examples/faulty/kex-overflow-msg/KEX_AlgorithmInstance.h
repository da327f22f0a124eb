/* Faulty fixture kex-overflow-msg: pass 2 writes 4 bytes past the declared message capacity (KAT text still matches) */
#ifndef KEX_ALGORITHM_INSTANCE_H
#define KEX_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "kex-overflow-msg"

#include "kex_api.h"

#endif
