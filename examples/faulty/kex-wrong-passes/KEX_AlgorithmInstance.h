/* Faulty fixture kex-wrong-passes: kex_get_passes_num says 3, pass 2 returns 1 (last pass) */
#ifndef KEX_ALGORITHM_INSTANCE_H
#define KEX_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "kex-wrong-passes"

#include "kex_api.h"

#endif
