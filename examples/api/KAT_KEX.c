/*
 * KAT driver for NGCC key exchanges (our own, written from the interface description in the
 * ICCS KEX template): defines drng_algorithm, derives one 64-byte seed per record from a DRNG
 * seeded with "seed" x 16, re-seeds drng_algorithm per record, runs both inits, the passes
 * (at most three, like the official driver) and both derivations, and writes
 * output/KAT_KEX_<ALGORITHM_INSTANCE>.txt.
 * Exit: 0 ok, -1 I/O or allocation, -3 a call failed, -5 the parties' secrets differ,
 * -6 the pass count disagrees with kex_get_passes_num (a reason goes to stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "KEX_AlgorithmInstance.h"
#include "drng.h"

#define RECORDS 10
#define SEED_BYTES 64
#define MAX_PASSES 3

typedef unsigned long long ull;
typedef unsigned char uc;

DRNG_ctx drng_algorithm;

/* Later passes are weak references: a protocol with fewer passes need not define them, and a
 * pass that is reached but missing is reported instead of failing the link. */
#pragma weak kex_generate_pass2_msg_b
#pragma weak kex_generate_pass3_msg_a

typedef struct {
    ull passes, pk, sk, sta, stb, ss, msg;
    uc *pka, *ska, *sta0, *pkb, *skb, *stb0, *ssa, *ssb, *m[MAX_PASSES + 1];
    ull pka_len, ska_len, sta_len, pkb_len, skb_len, stb_len, ssa_len, ssb_len;
    ull m_len[MAX_PASSES + 1];
} run;

static void put(FILE *f, const char *name, const uc *b, ull n)
{
    ull i;

    fprintf(f, "%s_Len = %llu\n%s = ", name, n, name);
    for (i = 0; i < n; i++)
        fprintf(f, "%02X", b[i]);
    fputc('\n', f);
}

static int alloc(run *r)
{
    int i;

    r->passes = kex_get_passes_num();
    r->pk = kex_get_pk_len_bytes();
    r->sk = kex_get_sk_len_bytes();
    r->sta = kex_get_sta_len_bytes();
    r->stb = kex_get_stb_len_bytes();
    r->ss = kex_get_ss_len_bytes();
    r->msg = kex_get_total_msg_len_bytes();
    r->pka = malloc(r->pk), r->ska = malloc(r->sk), r->sta0 = malloc(r->sta);
    r->pkb = malloc(r->pk), r->skb = malloc(r->sk), r->stb0 = malloc(r->stb);
    r->ssa = malloc(r->ss), r->ssb = malloc(r->ss);
    for (i = 0; i <= MAX_PASSES; i++)
        if ((r->m[i] = malloc(r->msg + 1)) == NULL)
            return -1;
    return r->pka && r->ska && r->sta0 && r->pkb && r->skb && r->stb0 && r->ssa && r->ssb ? 0
                                                                                        : -1;
}

/* Pass p (1-based): A sends the odd passes, B the even ones.  Writes the pass's state and
 * message lines; returns the call's result. */
static int pass(run *r, int p, FILE *f)
{
    char name[32];
    int rc;

    r->m_len[p] = r->msg;
    if ((p == 2 && !kex_generate_pass2_msg_b) || (p == 3 && !kex_generate_pass3_msg_a)) {
        fprintf(stderr, "pass %d reached but its function is not defined\n", p);
        return -1;
    }
    if (p == 1)
        rc = kex_generate_pass1_msg_a(r->ska, r->ska_len, r->pkb, r->pkb_len, r->sta0,
                                      &r->sta_len, r->m[1], &r->m_len[1]);
    else if (p == 2)
        rc = kex_generate_pass2_msg_b(r->skb, r->skb_len, r->pka, r->pka_len, r->m[1],
                                      r->m_len[1], r->stb0, &r->stb_len, r->m[2], &r->m_len[2]);
    else
        rc = kex_generate_pass3_msg_a(r->ska, r->ska_len, r->pkb, r->pkb_len, r->m[2],
                                      r->m_len[2], r->sta0, &r->sta_len, r->m[3], &r->m_len[3]);
    if (rc < 0)
        return rc;
    snprintf(name, sizeof name, "Pass%d_St%c", p, p % 2 ? 'a' : 'b');
    if (p % 2)
        put(f, name, r->sta0, r->sta_len);
    else
        put(f, name, r->stb0, r->stb_len);
    snprintf(name, sizeof name, "M%d", p);
    put(f, name, r->m[p], r->m_len[p]);
    return rc;
}

/* One record after the seed lines; returns 0, -3, -5 or -6. */
static int record(run *r, FILE *f)
{
    int p, rc = 0;
    ull last_a, last_b;

    r->pka_len = r->pkb_len = r->pk, r->ska_len = r->skb_len = r->sk;
    r->sta_len = r->sta, r->stb_len = r->stb, r->ssa_len = r->ssb_len = r->ss;
    fprintf(f, "Pass_Num = %llu\n", r->passes);
    if (r->passes < 1 || r->passes > MAX_PASSES) {
        fprintf(stderr, "kex_get_passes_num() = %llu: the KAT layout covers 1 to %d passes\n",
                r->passes, MAX_PASSES);
        return -3;
    }
    if (kex_init_a(r->pka, &r->pka_len, r->ska, &r->ska_len, r->sta0, &r->sta_len) != 0 ||
        kex_init_b(r->pkb, &r->pkb_len, r->skb, &r->skb_len, r->stb0, &r->stb_len) != 0)
        return -3;
    put(f, "PKa", r->pka, r->pka_len), put(f, "SKa", r->ska, r->ska_len);
    put(f, "Init_Sta", r->sta0, r->sta_len);
    put(f, "PKb", r->pkb, r->pkb_len), put(f, "SKb", r->skb, r->skb_len);
    put(f, "Init_Stb", r->stb0, r->stb_len);
    for (p = 1; p <= MAX_PASSES && rc == 0; p++) {
        rc = pass(r, p, f);
        if (rc < 0)
            return -3;
        if ((rc == 1) != ((ull)p == r->passes)) {
            fprintf(stderr, "pass %d returned %d but kex_get_passes_num() = %llu\n", p, rc,
                    r->passes);
            return -6;
        }
    }
    /* The last message each party sent (length 0 when B sent none). */
    p -= 1;
    last_a = (ull)(p % 2 ? p : p - 1), last_b = (ull)(p % 2 ? p - 1 : p);
    if (kex_derive_ss_a(r->ska, r->ska_len, r->pkb, r->pkb_len, r->m[last_b],
                        last_b ? r->m_len[last_b] : 0, r->sta0, r->sta_len, r->ssa,
                        &r->ssa_len) != 0 ||
        kex_derive_ss_b(r->skb, r->skb_len, r->pka, r->pka_len, r->m[last_a], r->m_len[last_a],
                        r->stb0, r->stb_len, r->ssb, &r->ssb_len) != 0)
        return -3;
    put(f, "SS", r->ssa, r->ssa_len);
    if (r->ssa_len != r->ssb_len || memcmp(r->ssa, r->ssb, r->ssa_len) != 0) {
        fprintf(stderr, "the shared secrets of A and B differ\n");
        return -5;
    }
    return 0;
}

int main(void)
{
    uc nonce[SEED_BYTES], seed[SEED_BYTES];
    DRNG_ctx seeder;
    char path[256];
    run r;
    FILE *f;
    int i, rc = 0;

    memset(&r, 0, sizeof r);
    if (alloc(&r) != 0)
        return -1;
    for (i = 0; i < SEED_BYTES; i++)
        nonce[i] = (uc)"seed"[i % 4];
    init_random_number(&seeder, nonce, sizeof nonce);
    mkdir("output", 0755);
    snprintf(path, sizeof path, "output/KAT_KEX_%s.txt", ALGORITHM_INSTANCE);
    f = fopen(path, "w");
    if (f == NULL)
        return -1;
    for (i = 0; i < RECORDS && rc == 0; i++) {
        get_random_number(&seeder, seed, 8 * SEED_BYTES);
        init_random_number(&drng_algorithm, seed, SEED_BYTES);
        fprintf(f, "Count = %d\n", i);
        put(f, "Seed", seed, SEED_BYTES);
        rc = record(&r, f);
        fputc('\n', f);
    }
    fclose(f);
    return rc;
}
