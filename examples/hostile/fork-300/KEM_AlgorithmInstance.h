/* Hostile fixture fork-300: forks 300 processes that never exit */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "fork-300"

#include "kem_api.h"

#endif
