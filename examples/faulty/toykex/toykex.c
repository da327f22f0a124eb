/*
 * toykex: a deliberately insecure two-pass "key exchange" for the faulty fixtures only (the
 * secret is a hash of two public nonces).  One fault is switched on per manifest:
 *   TOYKEX_UNEQUAL       B derives a secret that differs from A's in one bit
 *   TOYKEX_WRONG_PASSES  kex_get_passes_num says 3 while pass 2 returns 1 (last pass)
 *   TOYKEX_OVERFLOW_MSG  pass 2 writes 4 bytes past the declared message capacity
 *                        (the returned length stays honest, so the KAT text still matches)
 */
#include <string.h>

#include "KEX_AlgorithmInstance.h"
#include "auxfunc.h"
#include "drng.h"

extern DRNG_ctx drng_algorithm;

typedef unsigned long long ull;

#define N 16 /* key, nonce and message bytes */

ull kex_get_passes_num(void)
{
#ifdef TOYKEX_WRONG_PASSES
    return 3;
#else
    return 2;
#endif
}
ull kex_get_pk_len_bytes(void) { return N; }
ull kex_get_sk_len_bytes(void) { return N; }
ull kex_get_sta_len_bytes(void) { return 2 * N; }
ull kex_get_stb_len_bytes(void) { return 2 * N; }
ull kex_get_ss_len_bytes(void) { return 32; }
ull kex_get_total_msg_len_bytes(void) { return N; }

static int init(unsigned char *pk, ull *pk_len, unsigned char *sk, ull *sk_len,
                unsigned char *st, ull *st_len)
{
    unsigned char h[32];
    if (get_random_number(&drng_algorithm, sk, 8 * N) != 0 || sm3hash(256, sk, 8 * N, h) != 0)
        return -1;
    memcpy(pk, h, N);
    memset(st, 0, 2 * N);
    *pk_len = *sk_len = N;
    *st_len = 2 * N;
    return 0;
}

int kex_init_a(unsigned char *pka, ull *pka_len, unsigned char *ska, ull *ska_len,
               unsigned char *sta, ull *sta_len)
{
    return init(pka, pka_len, ska, ska_len, sta, sta_len);
}

int kex_init_b(unsigned char *pkb, ull *pkb_len, unsigned char *skb, ull *skb_len,
               unsigned char *stb, ull *stb_len)
{
    return init(pkb, pkb_len, skb, skb_len, stb, stb_len);
}

int kex_generate_pass1_msg_a(unsigned char *ska, ull ska_len, unsigned char *pkb, ull pkb_len,
                             unsigned char *sta, ull *sta_len, unsigned char *m1, ull *m1_len)
{
    (void)ska, (void)ska_len, (void)pkb, (void)pkb_len;
    if (get_random_number(&drng_algorithm, sta, 8 * N) != 0)
        return -1;
    memcpy(m1, sta, N);
    *sta_len = 2 * N;
    *m1_len = N;
    return 0;
}

int kex_generate_pass2_msg_b(unsigned char *skb, ull skb_len, unsigned char *pka, ull pka_len,
                             unsigned char *m1, ull m1_len, unsigned char *stb, ull *stb_len,
                             unsigned char *m2, ull *m2_len)
{
    (void)skb, (void)skb_len, (void)pka, (void)pka_len;
    if (m1_len != N || get_random_number(&drng_algorithm, stb + N, 8 * N) != 0)
        return -1;
    memcpy(stb, m1, N);
    memcpy(m2, stb + N, N);
#ifdef TOYKEX_OVERFLOW_MSG
    memset(m2 + N, 0xEE, 4);
#endif
    *stb_len = 2 * N;
    *m2_len = N;
    return 1;
}

/* Never reached in a correct run: the template ships it, and a two-pass protocol leaves it
 * failing. */
int kex_generate_pass3_msg_a(unsigned char *ska, ull ska_len, unsigned char *pkb, ull pkb_len,
                             unsigned char *m2, ull m2_len, unsigned char *sta, ull *sta_len,
                             unsigned char *m3, ull *m3_len)
{
    (void)ska, (void)ska_len, (void)pkb, (void)pkb_len, (void)m2, (void)m2_len;
    (void)sta, (void)sta_len, (void)m3, (void)m3_len;
    return -1;
}

int kex_derive_ss_a(unsigned char *ska, ull ska_len, unsigned char *pkb, ull pkb_len,
                    unsigned char *mb, ull mb_len, unsigned char *sta, ull sta_len,
                    unsigned char *ssa, ull *ssa_len)
{
    (void)ska, (void)ska_len, (void)pkb, (void)pkb_len, (void)sta_len;
    if (mb_len != N)
        return -1;
    memcpy(sta + N, mb, N);
    *ssa_len = 32;
    return sm3hash(256, sta, 8 * 2 * N, ssa);
}

int kex_derive_ss_b(unsigned char *skb, ull skb_len, unsigned char *pka, ull pka_len,
                    unsigned char *ma, ull ma_len, unsigned char *stb, ull stb_len,
                    unsigned char *ssb, ull *ssb_len)
{
    (void)skb, (void)skb_len, (void)pka, (void)pka_len, (void)ma, (void)ma_len, (void)stb_len;
    *ssb_len = 32;
    if (sm3hash(256, stb, 8 * 2 * N, ssb) != 0)
        return -1;
#ifdef TOYKEX_UNEQUAL
    ssb[0] ^= 0x01;
#endif
    return 0;
}
