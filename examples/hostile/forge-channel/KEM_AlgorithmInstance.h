/* Hostile fixture forge-channel: burns 0.4 s of CPU, writes a fake 42-cycle record on every pipe */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "forge-channel"

#include "kem_api.h"

#endif
