/* Instance dh3-2pass-toy of the NGCC Perf example key exchange (toy parameters). */
#ifndef KEX_ALGORITHM_INSTANCE_H
#define KEX_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "dh3-2pass-toy"
#define KEX_PASSES 2
#define KEX_LANES 8

#include "kex_api.h"

#endif
