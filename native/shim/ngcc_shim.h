/*
 * NGCC Perf harness shim ABI.  The shim object is linked into every
 * candidate library built by runner/build.py (never into a KAT executable).
 *
 *   DRNG_ctx drng_algorithm;   defined by the shim: the caller-side DRNG that
 *                              candidates draw from (the official KAT driver
 *                              defines it itself, so the shim is left out there)
 *   int ngcc_seed(seed, len)   init_random_number(&drng_algorithm, seed, len);
 *                              returns its result (0 on success)
 *   ngcc_candidate()           candidate id, e.g. "kem-ex1"
 *   ngcc_instance()            instance label, e.g. "rlwe-lpr-256"
 *   ngcc_category()            "kem" | "sign" | "hash" | "kex"
 *   ngcc_flags()               flag-set label, e.g. "guide" or "harness-default"
 *   ngcc_shim_abi()            ABI version of this header (currently 1)
 *
 * Metadata strings are compiled in from -DNGCC_CANDIDATE="..." etc.
 */
#ifndef NGCC_SHIM_H
#define NGCC_SHIM_H

#define NGCC_SHIM_ABI 1

int ngcc_seed(const unsigned char *seed, unsigned long long len);
const char *ngcc_candidate(void);
const char *ngcc_instance(void);
const char *ngcc_category(void);
const char *ngcc_flags(void);
int ngcc_shim_abi(void);

#endif
