/*
 * Example signature: Winternitz one-time signature (WOTS, w = WOTS_W) on SM3
 * with tweaked chain steps, in the style of WOTS+ without bitmasks:
 *   F(pub, chain, step, x) = SM3(pub(16) || be16(chain) || be16(step) || x(32))
 *   secret chain starts   = pseudoXOF(sk_seed, LEN * 32 bytes)
 *   pk = pub || root,  root = SM3(pub || end_0 || ... || end_{LEN-1})
 *   sk = sk_seed || pk
 *   digest = SM3(pk || m) in base w, plus a base-w checksum
 * ONE-TIME: a key pair must sign a single message; the harness signs once per
 * key pair, which is all a KAT or a timing loop needs.  Honest, genuine, small.
 */
#include <string.h>

#include "SIG_AlgorithmInstance.h"
#include "auxfunc.h"
#include "drng.h"

#if WOTS_W == 16
#define LOG_W 4
#define LEN2 3
#elif WOTS_W == 4
#define LOG_W 2
#define LEN2 5
#else
#error "WOTS_W must be 4 or 16"
#endif

#define N 32
#define PUB 16
#define LEN1 (8 * N / LOG_W)
#define LEN (LEN1 + LEN2)
#define PK_BYTES (PUB + N)
#define SK_BYTES (N + PK_BYTES)
#define SN_BYTES (LEN * N)

extern DRNG_ctx drng_algorithm;

unsigned long long sig_get_pk_len_bytes(void) { return PK_BYTES; }
unsigned long long sig_get_sk_len_bytes(void) { return SK_BYTES; }
unsigned long long sig_get_sn_len_bytes(void) { return SN_BYTES; }

/* Advance x from step `from` by `steps` steps of chain `chain`. */
static void chain(unsigned char x[N], const unsigned char pub[PUB], int chain_idx, int from,
                  int steps)
{
    unsigned char buf[PUB + 4 + N];
    int s;

    memcpy(buf, pub, PUB);
    buf[PUB] = (unsigned char)(chain_idx >> 8);
    buf[PUB + 1] = (unsigned char)chain_idx;
    for (s = from; s < from + steps; s++) {
        buf[PUB + 2] = (unsigned char)(s >> 8);
        buf[PUB + 3] = (unsigned char)s;
        memcpy(buf + PUB + 4, x, N);
        sm3hash(256, buf, 8 * sizeof buf, x);
    }
}

/* Base-w digits of SM3(pk || m) followed by the checksum digits. */
static void digits(int d[LEN], const unsigned char pk[PK_BYTES], const unsigned char *m,
                   unsigned long long m_len)
{
    unsigned char h[N];
    unsigned long long i, checksum = 0;
    iccs_sm3_ctx ctx;

    iccs_sm3_init(&ctx);
    iccs_sm3_update(&ctx, pk, PK_BYTES);
    iccs_sm3_update(&ctx, m, (size_t)m_len);
    iccs_sm3_final_bits(&ctx, 0, 0, h);
    for (i = 0; i < LEN1; i++) {
        d[i] = (h[i * LOG_W / 8] >> (8 - LOG_W - (i * LOG_W) % 8)) & (WOTS_W - 1);
        checksum += (unsigned long long)(WOTS_W - 1 - d[i]);
    }
    for (i = 0; i < LEN2; i++)
        d[LEN1 + i] = (int)((checksum >> (LOG_W * (LEN2 - 1 - i))) & (WOTS_W - 1));
}

static void root_of(unsigned char root[N], const unsigned char pub[PUB],
                    unsigned char ends[LEN][N])
{
    unsigned char buf[PUB + LEN * N];

    memcpy(buf, pub, PUB);
    memcpy(buf + PUB, ends, LEN * N);
    sm3hash(256, buf, 8 * sizeof buf, root);
}

int sig_keygen(unsigned char *pk, unsigned long long *pk_len, unsigned char *sk,
               unsigned long long *sk_len)
{
    unsigned char seeds[N + PUB], x[LEN][N];
    int i;

    if (get_random_number(&drng_algorithm, seeds, 8 * sizeof seeds) != 0)
        return -1;
    pseudoXOF(8ull * sizeof x, seeds, 8 * N, &x[0][0]);
    for (i = 0; i < LEN; i++)
        chain(x[i], seeds + N, i, 0, WOTS_W - 1);
    memcpy(pk, seeds + N, PUB);
    root_of(pk + PUB, seeds + N, x);
    memcpy(sk, seeds, N);
    memcpy(sk + N, pk, PK_BYTES);
    *pk_len = PK_BYTES;
    *sk_len = SK_BYTES;
    return 0;
}

int sig_sign(unsigned char *sk, unsigned long long sk_len, unsigned char *m,
             unsigned long long m_len, unsigned char *sn, unsigned long long *sn_len)
{
    const unsigned char *pk = sk + N;
    unsigned char x[LEN][N];
    int d[LEN], i;

    if (sk_len != SK_BYTES)
        return -1;
    digits(d, pk, m, m_len);
    pseudoXOF(8ull * sizeof x, sk, 8 * N, &x[0][0]);
    for (i = 0; i < LEN; i++) {
        chain(x[i], pk, i, 0, d[i]);
        memcpy(sn + i * N, x[i], N);
    }
    *sn_len = SN_BYTES;
    return 0;
}

int sig_verify(unsigned char *pk, unsigned long long pk_len, unsigned char *sn,
               unsigned long long sn_len, unsigned char *m, unsigned long long m_len)
{
    unsigned char x[LEN][N], root[N];
    int d[LEN], i;
    unsigned char diff = 0;

    if (pk_len != PK_BYTES || sn_len != SN_BYTES)
        return -1;
    digits(d, pk, m, m_len);
    for (i = 0; i < LEN; i++) {
        memcpy(x[i], sn + i * N, N);
        chain(x[i], pk, i, d[i], WOTS_W - 1 - d[i]);
    }
    root_of(root, pk, x);
    for (i = 0; i < N; i++)
        diff |= (unsigned char)(root[i] ^ pk[PUB + i]);
    return diff ? -1 : 0;
}
