/* Key exchange as one operation: the kex_* interface resolved with dlsym, buffers made once
 * outside the timed region, and one full protocol run per call (see ICCS-KEX.md). */
#define _GNU_SOURCE
#include "ops_kex.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned char uc;
typedef int (*init_fn)(uc *, ull *, uc *, ull *, uc *, ull *);
typedef int (*pass1_fn)(uc *, ull, uc *, ull, uc *, ull *, uc *, ull *);
typedef int (*pass_fn)(uc *, ull, uc *, ull, uc *, ull, uc *, ull *, uc *, ull *);
typedef int (*derive_fn)(uc *, ull, uc *, ull, uc *, ull, uc *, ull, uc *, ull *);

enum { A, B }; /* party A initiates (odd passes), B responds (even passes) */

typedef struct {
    init_fn init[2];
    pass1_fn pass1;
    pass_fn pass[NGCC_KEX_MAX_PASSES + 1]; /* index = pass number, from 2 */
    derive_fn derive[2];
    ull passes, pk, sk, st[2], ss, msg;
    uc *pkp[2], *skp[2], *stp[2], *ssp[2], *m[NGCC_KEX_MAX_PASSES + 1];
    ull pk_len[2], sk_len[2], st_len[2], ss_len[2], m_len[NGCC_KEX_MAX_PASSES + 1];
    /* Lengths returned in the checked run of the setup (what the driver reports). */
    ull seen_pk[2], seen_m[NGCC_KEX_MAX_PASSES + 1];
} kex_state;

static int fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* dlsym into a function pointer (memcpy keeps this well defined under -Wpedantic). */
static int resolve(void *lib, const char *name, void *slot, size_t size, char *err, size_t n)
{
    void *p = dlsym(lib, name);
    if (!p)
        return fail(err, n, "symbol %s not found", name);
    memcpy(slot, &p, size);
    return 0;
}

#define RESOLVE(lib, name, slot, err, n) resolve(lib, name, &(slot), sizeof(slot), err, n)

static int size_query(void *lib, const char *name, ull *out, char *err, size_t n)
{
    ull (*f)(void) = NULL;
    if (RESOLVE(lib, name, f, err, n))
        return -1;
    *out = f();
    return 0;
}

static int resolve_calls(kex_state *k, void *lib, char *err, size_t n)
{
    if (RESOLVE(lib, "kex_init_a", k->init[A], err, n) ||
        RESOLVE(lib, "kex_init_b", k->init[B], err, n) ||
        RESOLVE(lib, "kex_generate_pass1_msg_a", k->pass1, err, n) ||
        RESOLVE(lib, "kex_derive_ss_a", k->derive[A], err, n) ||
        RESOLVE(lib, "kex_derive_ss_b", k->derive[B], err, n))
        return -1;
    for (ull p = 2; p <= k->passes; p++) {
        char name[64];
        snprintf(name, sizeof name, "kex_generate_pass%llu_msg_%c", p, p % 2 ? 'a' : 'b');
        if (RESOLVE(lib, name, k->pass[p], err, n))
            return -1;
    }
    return 0;
}

static int query_sizes(kex_state *k, void *lib, char *err, size_t n)
{
    if (size_query(lib, "kex_get_passes_num", &k->passes, err, n) ||
        size_query(lib, "kex_get_pk_len_bytes", &k->pk, err, n) ||
        size_query(lib, "kex_get_sk_len_bytes", &k->sk, err, n) ||
        size_query(lib, "kex_get_sta_len_bytes", &k->st[A], err, n) ||
        size_query(lib, "kex_get_stb_len_bytes", &k->st[B], err, n) ||
        size_query(lib, "kex_get_ss_len_bytes", &k->ss, err, n) ||
        size_query(lib, "kex_get_total_msg_len_bytes", &k->msg, err, n))
        return -1;
    if (k->passes < 1 || k->passes > NGCC_KEX_MAX_PASSES)
        return fail(err, n, "kex_get_passes_num() = %llu, expected 1..%d", k->passes,
                    NGCC_KEX_MAX_PASSES);
    return 0;
}

static uc *buf(ull n)
{
    /* +64 as for the other categories: a small overrun is caught by the functional check's
     * guard bytes, not by crashing the timing run; calloc keeps every run deterministic. */
    return calloc(1, (size_t)n + 64);
}

static int allocate(kex_state *k)
{
    int ok = 1;
    for (int s = A; s <= B; s++) {
        ok &= (k->pkp[s] = buf(k->pk)) != NULL && (k->skp[s] = buf(k->sk)) != NULL;
        ok &= (k->stp[s] = buf(k->st[s])) != NULL && (k->ssp[s] = buf(k->ss)) != NULL;
    }
    /* m[0] stays an empty message: what A derives from when B sent nothing. */
    for (ull p = 0; p <= k->passes; p++)
        ok &= (k->m[p] = buf(k->msg)) != NULL;
    return ok ? 0 : -1;
}

/* Pass p: the sender's secret key, the peer's public key, the previous message and the sender's
 * state in, message p out. */
static int run_pass(kex_state *k, ull p)
{
    int s = p % 2 ? A : B, peer = 1 - s;
    k->m_len[p] = k->msg; /* capacity in, length out */
    if (p == 1)
        return k->pass1(k->skp[A], k->sk_len[A], k->pkp[B], k->pk_len[B], k->stp[A],
                        &k->st_len[A], k->m[1], &k->m_len[1]);
    return k->pass[p](k->skp[s], k->sk_len[s], k->pkp[peer], k->pk_len[peer], k->m[p - 1],
                      k->m_len[p - 1], k->stp[s], &k->st_len[s], k->m[p], &k->m_len[p]);
}

static int derive(kex_state *k, int s, ull last)
{
    int peer = 1 - s;
    k->ss_len[s] = k->ss;
    return k->derive[s](k->skp[s], k->sk_len[s], k->pkp[peer], k->pk_len[peer], k->m[last],
                        last ? k->m_len[last] : 0, k->stp[s], k->st_len[s], k->ssp[s],
                        &k->ss_len[s]);
}

int ngcc_call_kex_exchange(ngcc_op *op)
{
    kex_state *k = op->kex;
    for (int s = A; s <= B; s++) {
        k->pk_len[s] = k->pk, k->sk_len[s] = k->sk, k->st_len[s] = k->st[s];
        if (k->init[s](k->pkp[s], &k->pk_len[s], k->skp[s], &k->sk_len[s], k->stp[s],
                       &k->st_len[s]) != 0)
            return -1;
    }
    /* Every pass until the declared last one; a 1 ("last pass") anywhere else, or a 0 at the
     * declared last pass, is a protocol error, as in the official driver. */
    for (ull p = 1; p <= k->passes; p++) {
        int rc = run_pass(k, p);
        if (rc < 0)
            return -1;
        if ((rc == 1) != (p == k->passes))
            return -6;
    }
    ull last = k->passes, last_a = last % 2 ? last : last - 1, last_b = last % 2 ? last - 1 : last;
    if (derive(k, A, last_b) != 0 || derive(k, B, last_a) != 0)
        return -1;
    /* The secrets are compared inside the timed region: a memcmp of ss bytes, negligible next to
     * the protocol, and it is what makes a run a key exchange rather than a sequence of calls. */
    if (k->ss_len[A] != k->ss_len[B] || memcmp(k->ssp[A], k->ssp[B], (size_t)k->ss_len[A]) != 0)
        return -5;
    return 0;
}

int ngcc_kex_setup(ngcc_op *op, void *lib, char *err, size_t n)
{
    if (strcmp(op->operation, "exchange") != 0)
        return fail(err, n, "unknown kex operation %s", op->operation);
    kex_state *k = calloc(1, sizeof *k);
    if (!k)
        return fail(err, n, "out of memory");
    op->kex = k;
    if (query_sizes(k, lib, err, n) || resolve_calls(k, lib, err, n))
        return -1;
    if (allocate(k) != 0)
        return fail(err, n, "out of memory");
    op->pk_bytes = k->pk, op->sk_bytes = k->sk, op->ss_bytes = k->ss;
    op->call = ngcc_call_kex_exchange;
    /* One checked run before any timing: the message lengths reported are this run's, and a
     * protocol that fails here is refused instead of timed. */
    int rc = ngcc_call_kex_exchange(op);
    if (rc == -5)
        return fail(err, n, "exchange: the secrets of A and B differ, refusing to time");
    if (rc == -6)
        return fail(err, n, "exchange: a pass returned 1 before or after pass %llu declared by "
                            "kex_get_passes_num, refusing to time", k->passes);
    if (rc != 0)
        return fail(err, n, "setup: a kex call returned an error");
    memcpy(k->seen_pk, k->pk_len, sizeof k->seen_pk);
    memcpy(k->seen_m, k->m_len, sizeof k->seen_m);
    return 0;
}

void ngcc_kex_print(FILE *out, const ngcc_op *op)
{
    const kex_state *k = op->kex;
    if (!k || strcmp(op->category, "kex") != 0)
        return;
    fprintf(out,
            "\"kex\":{\"passes\":%llu,\"pk_a_bytes\":%llu,\"pk_b_bytes\":%llu,\"sk_bytes\":%llu,"
            "\"sta_bytes\":%llu,\"stb_bytes\":%llu,\"ss_bytes\":%llu,\"msg_capacity_bytes\":%llu,"
            "\"messages\":[",
            k->passes, k->seen_pk[A], k->seen_pk[B], k->sk, k->st[A], k->st[B], k->ss, k->msg);
    for (ull p = 1; p <= k->passes; p++)
        fprintf(out, "%s%llu", p > 1 ? "," : "", k->seen_m[p]);
    fprintf(out, "]},");
}

void ngcc_kex_free(ngcc_op *op)
{
    kex_state *k = op->kex;
    if (!k)
        return;
    for (int s = A; s <= B; s++) {
        free(k->pkp[s]), free(k->skp[s]), free(k->stp[s]), free(k->ssp[s]);
    }
    for (int p = 0; p <= NGCC_KEX_MAX_PASSES; p++)
        free(k->m[p]);
    free(k);
    op->kex = NULL;
}
