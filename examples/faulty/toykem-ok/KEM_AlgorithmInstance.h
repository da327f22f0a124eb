/* Faulty fixture toykem-ok: the unmodified toy KEM (control) */
#ifndef KEM_ALGORITHM_INSTANCE_H
#define KEM_ALGORITHM_INSTANCE_H

#define ALGORITHM_INSTANCE "toykem-ok"

#include "kem_api.h"

#endif
