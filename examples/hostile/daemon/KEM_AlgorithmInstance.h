/* Hostile fixture daemon: setsid double-forks a daemon, then hangs the KAT run */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "daemon"

#include "kem_api.h"

#endif
