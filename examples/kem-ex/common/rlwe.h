/*
 * Example KEM: Ring-LWE public-key encryption in the LPR style over
 * Z_q[x]/(x^N + 1), q = 3329, secrets and errors from the centered binomial
 * distribution with eta = 2, made IND-CCA by a Fujisaki-Okamoto transform
 * with implicit rejection.  Hashes: sm3hash (H, KDF), pseudohash-512 (G),
 * pseudoXOF (matrix and noise expansion).  Toy parameters: a correct,
 * genuine construction for exercising the harness, not a security claim.
 */
#ifndef RLWE_H
#define RLWE_H

#include <stdint.h>

#include "KEM_AlgorithmInstance.h"

#ifndef RLWE_N
#error "RLWE_N must be defined by KEM_AlgorithmInstance.h"
#endif

#define RLWE_Q 3329
#define RLWE_SYM 32                           /* seeds, messages, hashes, shared secret */
#define RLWE_POLY_BYTES (RLWE_N * 12 / 8)     /* 12-bit packed coefficients */
#define RLWE_PK_BYTES (RLWE_SYM + RLWE_POLY_BYTES)
#define RLWE_CT_BYTES (2 * RLWE_POLY_BYTES)
#define RLWE_SK_BYTES (RLWE_POLY_BYTES + RLWE_PK_BYTES + 2 * RLWE_SYM)

typedef struct {
    int16_t c[RLWE_N];
} poly;

void poly_uniform(poly *a, const unsigned char seed[RLWE_SYM]);
void poly_noise(poly *p, const unsigned char seed[RLWE_SYM], unsigned char nonce);
/* r = a * s + e mod (x^N + 1, q); s has small (possibly negative) coefficients */
void poly_mul_add(poly *r, const poly *a, const poly *s, const poly *e);
void poly_pack(unsigned char *out, const poly *p);
void poly_unpack(poly *p, const unsigned char *in);

#endif
