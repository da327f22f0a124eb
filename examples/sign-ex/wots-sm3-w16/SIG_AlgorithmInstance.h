/* Instance wots-sm3-w16 of the NGCC Perf example one-time signature. */
#ifndef SIG_ALGORITHM_INSTANCE_H
#define SIG_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "wots-sm3-w16"
#define WOTS_W 16

#include "sig_api.h"

#endif
