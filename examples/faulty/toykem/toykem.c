/*
 * Faulty-fixture base: a deliberately INSECURE toy KEM (anyone holding pk can
 * decapsulate) that only exists to carry one injected fault per fixture:
 *   sk = seed || pk,  pk = SM3(seed),  ct = r || 0x01,  ss = SM3(pk || r)
 * Faults (one -D per fixture manifest):
 *   TOYKEM_SEGV_DEC     kem_dec writes through a NULL pointer
 *   TOYKEM_LOOP_KEYGEN  kem_keygen never returns
 *   TOYKEM_MALLOC_10G   kem_keygen mallocs 10 GB and uses it unchecked
 *   TOYKEM_OVERFLOW_CT  kem_enc writes 4 bytes past the ciphertext
 *   TOYKEM_WRONG_SS     shared secret derived differently from the reference KAT
 *   TOYKEM_NO_DEC       kem_dec is not defined at all
 *   TOYKEM_UNDEFINED    kem_enc calls a function defined nowhere
 */
#include <stdlib.h>
#include <string.h>

#include "KEM_AlgorithmInstance.h"
#include "auxfunc.h"
#include "drng.h"

#define SYM 32

extern DRNG_ctx drng_algorithm;

unsigned long long kem_get_pk_len_bytes(void) { return SYM; }
unsigned long long kem_get_sk_len_bytes(void) { return 2 * SYM; }
unsigned long long kem_get_ct_len_bytes(void) { return SYM + 1; }
unsigned long long kem_get_ss_len_bytes(void) { return SYM; }

#ifdef TOYKEM_UNDEFINED
int toykem_helper_defined_nowhere(unsigned char *ct);
#endif

static void derive(unsigned char ss[SYM], const unsigned char *pk, const unsigned char *r)
{
    unsigned char buf[2 * SYM];

    memcpy(buf, pk, SYM);
    memcpy(buf + SYM, r, SYM);
#ifdef TOYKEM_WRONG_SS
    buf[0] ^= 1;
#endif
    sm3hash(256, buf, 8 * sizeof buf, ss);
}

int kem_keygen(unsigned char *pk, unsigned long long *pk_len, unsigned char *sk,
               unsigned long long *sk_len)
{
#ifdef TOYKEM_LOOP_KEYGEN
    volatile unsigned long long spin = 0;
    for (;;)
        spin++;
#endif
#ifdef TOYKEM_MALLOC_10G
    {
        size_t big = (size_t)10 << 30;
        /* volatile: keep the compiler from eliding the allocation */
        unsigned char *volatile p = malloc(big); /* unchecked on purpose */
        memset(p, 1, big);
        sk[0] = p[big - 1];
        free(p);
    }
#endif
    get_random_number(&drng_algorithm, sk, 8 * SYM);
    sm3hash(256, sk, 8 * SYM, pk);
    memcpy(sk + SYM, pk, SYM);
    *pk_len = SYM;
    *sk_len = 2 * SYM;
    return 0;
}

int kem_enc(unsigned char *pk, unsigned long long pk_len, unsigned char *ss,
            unsigned long long *ss_len, unsigned char *ct, unsigned long long *ct_len)
{
    if (pk_len != SYM)
        return -1;
    get_random_number(&drng_algorithm, ct, 8 * SYM);
    ct[SYM] = 1;
#ifdef TOYKEM_OVERFLOW_CT
    memset(ct + SYM + 1, 0x5a, 4); /* past the declared ct_len */
#endif
#ifdef TOYKEM_UNDEFINED
    toykem_helper_defined_nowhere(ct);
#endif
    derive(ss, pk, ct);
    *ct_len = SYM + 1;
    *ss_len = SYM;
    return 0;
}

#ifndef TOYKEM_NO_DEC
int kem_dec(unsigned char *sk, unsigned long long sk_len, unsigned char *ct,
            unsigned long long ct_len, unsigned char *ss, unsigned long long *ss_len)
{
    if (sk_len != 2 * SYM || ct_len != SYM + 1)
        return -1;
#ifdef TOYKEM_SEGV_DEC
    {
        volatile unsigned char *volatile nowhere = NULL;
        nowhere[ct[0]] = 1;
    }
#endif
    derive(ss, sk + SYM, ct);
    *ss_len = SYM;
    return 0;
}
#endif
