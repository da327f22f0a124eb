/* Instance dh3-3pass-toy of the NGCC Perf example key exchange (toy parameters). */
#ifndef KEX_ALGORITHM_INSTANCE_H
#define KEX_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "dh3-3pass-toy"
#define KEX_PASSES 3
#define KEX_LANES 16

#include "kex_api.h"

#endif
