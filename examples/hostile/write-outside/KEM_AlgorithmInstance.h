/* Hostile fixture write-outside: writes into the project folder and its own tree, opens the database read-write */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "write-outside"

#include "kem_api.h"

#endif
