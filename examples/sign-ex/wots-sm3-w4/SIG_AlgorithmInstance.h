/* Instance wots-sm3-w4 of the NGCC Perf example one-time signature. */
#ifndef SIG_ALGORITHM_INSTANCE_H
#define SIG_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "wots-sm3-w4"
#define WOTS_W 4

#include "sig_api.h"

#endif
