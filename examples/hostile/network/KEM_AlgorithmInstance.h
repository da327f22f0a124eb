/* Hostile fixture network: connects to 127.0.0.1 (web, PostgreSQL, Redis, ssh) */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "network"

#include "kem_api.h"

#endif
