/* Hostile fixture read-secrets: reads /proc/1/environ, the parent's environ, /root/.ssh, the database */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "read-secrets"

#include "kem_api.h"

#endif
