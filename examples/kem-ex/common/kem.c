/*
 * NGCC API of the example Ring-LWE KEM (see rlwe.h).
 *   pk = rho || pack(b),  b = a(rho) * s + e
 *   sk = pack(s) || pk || H(pk) || z
 *   ct = pack(u) || pack(v),  u = a * r + e1,  v = b * r + e2 + encode(m)
 * Encoding: message bit i sets coefficients i, i+256, ... to q/2.
 * FO: (K, coins) = G(m || H(pk)), ss = KDF(K || H(ct)); decapsulation
 * re-encrypts and on mismatch returns KDF(z || H(ct)) (implicit rejection).
 */
#include <string.h>

#include "auxfunc.h"
#include "drng.h"
#include "rlwe.h"

extern DRNG_ctx drng_algorithm;

unsigned long long kem_get_pk_len_bytes(void) { return RLWE_PK_BYTES; }
unsigned long long kem_get_sk_len_bytes(void) { return RLWE_SK_BYTES; }
unsigned long long kem_get_ct_len_bytes(void) { return RLWE_CT_BYTES; }
unsigned long long kem_get_ss_len_bytes(void) { return RLWE_SYM; }

static void hash_h(unsigned char out[RLWE_SYM], const unsigned char *in, size_t len)
{
    sm3hash(256, in, 8ull * len, out);
}

/* Deterministic CPA encryption of m under pk with coins. */
static void cpa_enc(unsigned char ct[RLWE_CT_BYTES], const unsigned char pk[RLWE_PK_BYTES],
                    const unsigned char m[RLWE_SYM], const unsigned char coins[RLWE_SYM])
{
    poly a, b, r, e1, e2, u, v;
    int i;

    poly_uniform(&a, pk);
    poly_unpack(&b, pk + RLWE_SYM);
    poly_noise(&r, coins, 0);
    poly_noise(&e1, coins, 1);
    poly_noise(&e2, coins, 2);
    for (i = 0; i < RLWE_N; i++)
        e2.c[i] = (int16_t)(e2.c[i] + ((m[(i % 256) / 8] >> (i % 8)) & 1) * ((RLWE_Q + 1) / 2));
    poly_mul_add(&u, &a, &r, &e1);
    poly_mul_add(&v, &b, &r, &e2);
    poly_pack(ct, &u);
    poly_pack(ct + RLWE_POLY_BYTES, &v);
}

static void cpa_dec(unsigned char m[RLWE_SYM], const unsigned char *sk_s,
                    const unsigned char ct[RLWE_CT_BYTES])
{
    poly s, u, v, w;
    int dist[256] = {0};
    int i;

    poly_unpack(&s, sk_s);
    for (i = 0; i < RLWE_N; i++) /* s was packed mod q: recentre to small values */
        if (s.c[i] > RLWE_Q / 2)
            s.c[i] = (int16_t)(s.c[i] - RLWE_Q);
    poly_unpack(&u, ct);
    poly_unpack(&v, ct + RLWE_POLY_BYTES);
    poly_mul_add(&w, &u, &s, NULL);
#ifdef RLWE_VARIABLE_TIME_DEC
    /* Deliberately input-dependent (instance rlwe-lpr-256-vt only): 2^b - 1 extra products,
     * b = the low 3 bits of the ciphertext's first byte (0..127 products), results discarded. It
     * models a candidate whose decapsulation time depends on the ciphertext, so that the
     * harness's input-pool measurement has a spread across inputs to find; the spread is made
     * far wider (up to ~40x) than any process-to-process noise seen on a busy machine, so the
     * verdict does not hinge on how quiet the box is. The decapsulated value is unchanged. */
    {
        poly scratch;
        for (int k = 0; k < (1 << (ct[0] & 7)) - 1; k++)
            poly_mul_add(&scratch, &u, &s, NULL);
    }
#endif
    for (i = 0; i < RLWE_N; i++) {
        int x = (v.c[i] - w.c[i] + RLWE_Q) % RLWE_Q; /* in [0, q) */
        dist[i % 256] += x > RLWE_Q / 2 ? RLWE_Q - x : x; /* distance to 0 */
    }
    memset(m, 0, RLWE_SYM);
    for (i = 0; i < 256; i++)
        if (dist[i] > (RLWE_N / 256) * (RLWE_Q / 4))
            m[i / 8] |= (unsigned char)(1u << (i % 8));
}

int kem_keygen(unsigned char *pk, unsigned long long *pk_len, unsigned char *sk,
               unsigned long long *sk_len)
{
    unsigned char seeds[2 * RLWE_SYM];
    poly a, s, e, b;

    if (get_random_number(&drng_algorithm, seeds, 8 * sizeof seeds) != 0)
        return -1;
    poly_uniform(&a, seeds);
    poly_noise(&s, seeds + RLWE_SYM, 0);
    poly_noise(&e, seeds + RLWE_SYM, 1);
    poly_mul_add(&b, &a, &s, &e);
    memcpy(pk, seeds, RLWE_SYM);
    poly_pack(pk + RLWE_SYM, &b);
    poly_pack(sk, &s);
    memcpy(sk + RLWE_POLY_BYTES, pk, RLWE_PK_BYTES);
    hash_h(sk + RLWE_POLY_BYTES + RLWE_PK_BYTES, pk, RLWE_PK_BYTES);
    if (get_random_number(&drng_algorithm, sk + RLWE_SK_BYTES - RLWE_SYM, 8 * RLWE_SYM) != 0)
        return -1;
    *pk_len = RLWE_PK_BYTES;
    *sk_len = RLWE_SK_BYTES;
    return 0;
}

/* buf = m || H(pk) -> G = pseudohash-512 -> (K, coins) */
static void derive(unsigned char kc[2 * RLWE_SYM], const unsigned char m[RLWE_SYM],
                   const unsigned char hpk[RLWE_SYM])
{
    unsigned char buf[2 * RLWE_SYM];

    memcpy(buf, m, RLWE_SYM);
    memcpy(buf + RLWE_SYM, hpk, RLWE_SYM);
    pseudohash(512, buf, 8 * sizeof buf, kc);
}

static void kdf(unsigned char ss[RLWE_SYM], const unsigned char key[RLWE_SYM],
                const unsigned char *ct)
{
    unsigned char buf[2 * RLWE_SYM];

    memcpy(buf, key, RLWE_SYM);
    hash_h(buf + RLWE_SYM, ct, RLWE_CT_BYTES);
    hash_h(ss, buf, sizeof buf);
}

int kem_enc(unsigned char *pk, unsigned long long pk_len, unsigned char *ss,
            unsigned long long *ss_len, unsigned char *ct, unsigned long long *ct_len)
{
    unsigned char m[RLWE_SYM], hpk[RLWE_SYM], kc[2 * RLWE_SYM];

    if (pk_len != RLWE_PK_BYTES || get_random_number(&drng_algorithm, m, 8 * RLWE_SYM) != 0)
        return -1;
    hash_h(hpk, pk, RLWE_PK_BYTES);
    derive(kc, m, hpk);
    cpa_enc(ct, pk, m, kc + RLWE_SYM);
    kdf(ss, kc, ct);
    *ct_len = RLWE_CT_BYTES;
    *ss_len = RLWE_SYM;
    return 0;
}

int kem_dec(unsigned char *sk, unsigned long long sk_len, unsigned char *ct,
            unsigned long long ct_len, unsigned char *ss, unsigned long long *ss_len)
{
    const unsigned char *pk = sk + RLWE_POLY_BYTES, *hpk = pk + RLWE_PK_BYTES;
    const unsigned char *z = hpk + RLWE_SYM;
    unsigned char m[RLWE_SYM], kc[2 * RLWE_SYM], ct2[RLWE_CT_BYTES], key[RLWE_SYM];
    unsigned char diff = 0;
    int i;

    if (sk_len != RLWE_SK_BYTES || ct_len != RLWE_CT_BYTES)
        return -1;
    cpa_dec(m, sk, ct);
    derive(kc, m, hpk);
    cpa_enc(ct2, pk, m, kc + RLWE_SYM);
    for (i = 0; i < RLWE_CT_BYTES; i++)
        diff |= (unsigned char)(ct[i] ^ ct2[i]);
    /* constant-time select: mask = 0xff when the re-encryption matches */
    for (i = 0; i < RLWE_SYM; i++) {
        unsigned char mask = (unsigned char)(((unsigned)diff - 1u) >> 8);
        key[i] = (unsigned char)((kc[i] & mask) | (z[i] & (unsigned char)~mask));
    }
    kdf(ss, key, ct);
    *ss_len = RLWE_SYM;
    return 0;
}
