/*
 * NGCC Perf example key exchange (ours): a toy "three Diffie-Hellman values" exchange in the
 * multiplicative group modulo the prime p = 2^32 - 5, run on KEX_LANES independent lanes.
 * TOY PARAMETERS, NO SECURITY CLAIM: a 32-bit group is broken instantly.  It exists so that the
 * harness has a key exchange with known behaviour and a hand-countable use of the ICCS
 * primitives.
 *
 * Long-term keys: a = DRNG, A = g^a (party A); b, B likewise.  Pass 1 (A): x = DRNG, X = g^x.
 * Pass 2 (B): y = DRNG, Y = g^y; K = pseudohash-512(X^y | X^b | A^y | X | Y).  Two passes:
 * m2 = Y.  Three passes: m2 = Y | sm3hash(K[32..64] | "B"), and pass 3 (A) checks B's tag and
 * sends m3 = sm3hash(K[32..64] | "A"), which B checks before deriving.  Secret: pseudoXOF-256(K).
 *
 * ICCS calls per exchange (counted by the profile, checked by tests/runner/test_kex.py):
 *   get_random_number 4 (a, b, x, y); pseudohash 2 (K at B and at A); pseudoXOF 2 (both secrets);
 *   sm3hash 2 (the state identifiers) with two passes, 6 with three (+ tag B made and checked,
 *   tag A made and checked).
 */
#include <string.h>

#include "KEX_AlgorithmInstance.h"
#include "auxfunc.h"
#include "drng.h"

extern DRNG_ctx drng_algorithm;

typedef unsigned long long ull;

#define P 4294967291ull /* 2^32 - 5, prime */
#define G 5ull
#define E (4 * KEX_LANES) /* bytes of one group vector */
#define ID 32             /* state identifier: sm3hash of the party's public key */
#define KB 64             /* K: 32 bytes of session key material, 32 bytes of tag key */
#define TAG 32
#define ST (ID + E + KB)  /* state: identifier | ephemeral exponents | K */

ull kex_get_passes_num(void) { return KEX_PASSES; }
ull kex_get_pk_len_bytes(void) { return E; }
ull kex_get_sk_len_bytes(void) { return E; }
ull kex_get_sta_len_bytes(void) { return ST; }
ull kex_get_stb_len_bytes(void) { return ST; }
ull kex_get_ss_len_bytes(void) { return 32; }
ull kex_get_total_msg_len_bytes(void) { return E + TAG; }

static ull get32(const unsigned char *p)
{
    return ((ull)p[0] << 24) | ((ull)p[1] << 16) | ((ull)p[2] << 8) | (ull)p[3];
}

static void put32(unsigned char *p, ull v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static ull powmod(ull base, ull e)
{
    ull r = 1;
    base %= P;
    while (e) {
        if (e & 1)
            r = r * base % P; /* both factors < 2^32: the product fits in 64 bits */
        base = base * base % P;
        e >>= 1;
    }
    return r;
}

/* out[i] = base[i]^e[i] lane by lane; base NULL means the generator. */
static void vexp(unsigned char *out, const unsigned char *base, const unsigned char *e)
{
    int i;
    for (i = 0; i < KEX_LANES; i++)
        put32(out + 4 * i, powmod(base ? get32(base + 4 * i) : G, get32(e + 4 * i)));
}

static int keypair(unsigned char *pk, ull *pk_len, unsigned char *sk, ull *sk_len,
                   unsigned char *st, ull *st_len)
{
    if (get_random_number(&drng_algorithm, sk, 8 * E) != 0)
        return -1;
    vexp(pk, NULL, sk);
    memset(st, 0, ST);
    if (sm3hash(256, pk, 8 * E, st) != 0)
        return -1;
    *pk_len = *sk_len = E;
    *st_len = ST;
    return 0;
}

int kex_init_a(unsigned char *pka, ull *pka_len, unsigned char *ska, ull *ska_len,
               unsigned char *sta, ull *sta_len)
{
    return keypair(pka, pka_len, ska, ska_len, sta, sta_len);
}

int kex_init_b(unsigned char *pkb, ull *pkb_len, unsigned char *skb, ull *skb_len,
               unsigned char *stb, ull *stb_len)
{
    return keypair(pkb, pkb_len, skb, skb_len, stb, stb_len);
}

/* K from the three shared values and the two ephemeral keys (same order at A and B). */
static int derive_k(const unsigned char z[3][E], const unsigned char *x_pub,
                    const unsigned char *y_pub, unsigned char *k)
{
    unsigned char material[5 * E];
    memcpy(material, z, 3 * E);
    memcpy(material + 3 * E, x_pub, E);
    memcpy(material + 4 * E, y_pub, E);
    return pseudohash(512, material, 8ull * sizeof material, k);
}

static int tag(const unsigned char *k, char who, unsigned char *out)
{
    unsigned char in[KB / 2 + 1];
    memcpy(in, k + KB / 2, KB / 2);
    in[KB / 2] = (unsigned char)who;
    return sm3hash(256, in, 8ull * sizeof in, out);
}

int kex_generate_pass1_msg_a(unsigned char *ska, ull ska_len, unsigned char *pkb, ull pkb_len,
                             unsigned char *sta, ull *sta_len, unsigned char *m1, ull *m1_len)
{
    (void)ska, (void)pkb;
    if (ska_len != E || pkb_len != E || *sta_len != ST)
        return -1;
    if (get_random_number(&drng_algorithm, sta + ID, 8 * E) != 0)
        return -1;
    vexp(m1, NULL, sta + ID);
    *m1_len = E;
    return 0;
}

int kex_generate_pass2_msg_b(unsigned char *skb, ull skb_len, unsigned char *pka, ull pka_len,
                             unsigned char *m1, ull m1_len, unsigned char *stb, ull *stb_len,
                             unsigned char *m2, ull *m2_len)
{
    unsigned char z[3][E];
    unsigned char *y = stb + ID, *k = stb + ID + E;
    if (skb_len != E || pka_len != E || m1_len != E || *stb_len != ST)
        return -1;
    if (get_random_number(&drng_algorithm, y, 8 * E) != 0)
        return -1;
    vexp(m2, NULL, y);
    vexp(z[0], m1, y);
    vexp(z[1], m1, skb);
    vexp(z[2], pka, y);
    if (derive_k((const unsigned char(*)[E])z, m1, m2, k) != 0)
        return -1;
    *m2_len = E;
    if (KEX_PASSES == 2)
        return 1;
    if (tag(k, 'B', m2 + E) != 0)
        return -1;
    *m2_len = E + TAG;
    return 0;
}

/* A's K from B's reply: X^y = Y^x, X^b = B^x, A^y = Y^a. */
static int a_side_k(unsigned char *ska, unsigned char *pkb, const unsigned char *y_pub,
                    unsigned char *sta, unsigned char *k)
{
    unsigned char z[3][E], x_pub[E];
    vexp(z[0], y_pub, sta + ID);
    vexp(z[1], pkb, sta + ID);
    vexp(z[2], y_pub, ska);
    vexp(x_pub, NULL, sta + ID);
    return derive_k((const unsigned char(*)[E])z, x_pub, y_pub, k);
}

int kex_generate_pass3_msg_a(unsigned char *ska, ull ska_len, unsigned char *pkb, ull pkb_len,
                             unsigned char *m2, ull m2_len, unsigned char *sta, ull *sta_len,
                             unsigned char *m3, ull *m3_len)
{
    unsigned char expect[TAG], *k = sta + ID + E;
    if (KEX_PASSES != 3 || ska_len != E || pkb_len != E || m2_len != E + TAG || *sta_len != ST)
        return -1;
    if (a_side_k(ska, pkb, m2, sta, k) != 0 || tag(k, 'B', expect) != 0)
        return -1;
    if (memcmp(expect, m2 + E, TAG) != 0)
        return -2; /* B's tag does not match: B does not hold the same K */
    if (tag(k, 'A', m3) != 0)
        return -1;
    *m3_len = TAG;
    return 1;
}

static int secret(const unsigned char *k, unsigned char *ss, ull *ss_len)
{
    *ss_len = 32;
    return pseudoXOF(256, k, 8 * KB / 2, ss);
}

int kex_derive_ss_a(unsigned char *ska, ull ska_len, unsigned char *pkb, ull pkb_len,
                    unsigned char *mb, ull mb_len, unsigned char *sta, ull sta_len,
                    unsigned char *ssa, ull *ssa_len)
{
    unsigned char *k = sta + ID + E;
    if (ska_len != E || pkb_len != E || sta_len != ST || mb_len < E)
        return -1;
    /* With three passes K was made (and B's tag checked) in pass 3. */
    if (KEX_PASSES == 2 && a_side_k(ska, pkb, mb, sta, k) != 0)
        return -1;
    return secret(k, ssa, ssa_len);
}

int kex_derive_ss_b(unsigned char *skb, ull skb_len, unsigned char *pka, ull pka_len,
                    unsigned char *ma, ull ma_len, unsigned char *stb, ull stb_len,
                    unsigned char *ssb, ull *ssb_len)
{
    unsigned char expect[TAG], *k = stb + ID + E;
    (void)skb, (void)pka;
    if (skb_len != E || pka_len != E || stb_len != ST)
        return -1;
    if (KEX_PASSES == 3) {
        if (ma_len != TAG || tag(k, 'A', expect) != 0)
            return -1;
        if (memcmp(expect, ma, TAG) != 0)
            return -2; /* A's tag does not match */
    }
    return secret(k, ssb, ssb_len);
}
