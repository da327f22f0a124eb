/* Library discovery: seeding, category, sizes, and the per-category setup. */
#define _GNU_SOURCE
#include "ops.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "categories.h"
#include "ops_calls.h"
#include "ops_kex.h"

static int fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* dlsym into a function pointer without a pedantic object/function cast. */
static void *sym(void *lib, const char *name)
{
    return dlsym(lib, name);
}

static ull size_of(void *lib, const char *getter)
{
    ull (*f)(void);
    void *p = sym(lib, getter);
    if (!p)
        return 0;
    memcpy(&f, &p, sizeof f);
    return f();
}

static const char *detect_category(void *lib)
{
    void *p = sym(lib, "ngcc_category");
    if (p) {
        const char *(*f)(void);
        memcpy(&f, &p, sizeof f);
        return f();
    }
    /* Fallback: probe the interface symbols. */
    if (sym(lib, "kem_keygen"))
        return "kem";
    if (sym(lib, "sig_keygen"))
        return "sign";
    if (sym(lib, "kex_init_a"))
        return "kex";
    if (sym(lib, "CryptHash"))
        return "hash";
    return NULL;
}

static unsigned char *buf(ull n)
{
    /* +64: tolerate small off-by-one overruns by candidates without masking
     * them from KAT (which is checked elsewhere); calloc: deterministic. */
    return calloc(1, (size_t)n + 64);
}

static int need(void *lib, const char *name, void **out, char *err, size_t n)
{
    *out = sym(lib, name);
    return *out ? 0 : fail(err, n, "symbol %s not found", name);
}

static int setup_kem(ngcc_op *op, void *lib, char *err, size_t n)
{
    void *kg, *enc, *dec;
    if (need(lib, "kem_keygen", &kg, err, n) || need(lib, "kem_enc", &enc, err, n) ||
        need(lib, "kem_dec", &dec, err, n))
        return -1;
    op->pk_bytes = size_of(lib, "kem_get_pk_len_bytes");
    op->sk_bytes = size_of(lib, "kem_get_sk_len_bytes");
    op->ct_bytes = size_of(lib, "kem_get_ct_len_bytes");
    op->ss_bytes = size_of(lib, "kem_get_ss_len_bytes");
    op->pk = buf(op->pk_bytes);
    op->sk = buf(op->sk_bytes);
    op->ct = buf(op->ct_bytes);
    op->ss = buf(op->ss_bytes);
    op->ss2 = buf(op->ss_bytes);
    if (!op->pk || !op->sk || !op->ct || !op->ss || !op->ss2)
        return fail(err, n, "out of memory");
    if (strcmp(op->operation, "keygen") == 0) {
        op->fn = kg;
        op->call = ngcc_call_kem_keygen;
        return 0;
    }
    /* enc and dec: one key pair, made outside the timed region. */
    op->fn = kg;
    if (ngcc_call_kem_keygen(op) != 0)
        return fail(err, n, "setup: kem_keygen failed");
    op->fn = enc;
    if (ngcc_call_kem_enc(op) != 0)
        return fail(err, n, "setup: kem_enc failed");
    if (strcmp(op->operation, "enc") == 0) {
        op->call = ngcc_call_kem_enc;
        return 0;
    }
    if (strcmp(op->operation, "dec") != 0)
        return fail(err, n, "unknown kem operation %s", op->operation);
    /* dec: one honest encapsulation; refuse to time a decapsulation that
     * does not return the encapsulated shared secret. */
    memcpy(op->ss2, op->ss, (size_t)op->ss_bytes);
    ull ss_ref_len = op->ss_len;
    op->fn = dec;
    if (ngcc_call_kem_dec(op) != 0)
        return fail(err, n, "setup: kem_dec failed");
    if (op->ss_len != ss_ref_len || memcmp(op->ss, op->ss2, (size_t)ss_ref_len) != 0)
        return fail(err, n, "dec: shared secret mismatch, refusing to time");
    op->call = ngcc_call_kem_dec;
    return 0;
}

static int setup_sign(ngcc_op *op, void *lib, char *err, size_t n)
{
    void *kg, *sg, *vf;
    if (need(lib, "sig_keygen", &kg, err, n) || need(lib, "sig_sign", &sg, err, n) ||
        need(lib, "sig_verify", &vf, err, n))
        return -1;
    op->pk_bytes = size_of(lib, "sig_get_pk_len_bytes");
    op->sk_bytes = size_of(lib, "sig_get_sk_len_bytes");
    op->sig_bytes = size_of(lib, "sig_get_sn_len_bytes");
    op->pk = buf(op->pk_bytes);
    op->sk = buf(op->sk_bytes);
    op->sig = buf(op->sig_bytes);
    /* The guide's fixed 64-byte message: bytes 00..3f. */
    op->msg_len = 64;
    op->msg = buf(op->msg_len);
    if (!op->pk || !op->sk || !op->sig || !op->msg)
        return fail(err, n, "out of memory");
    /* Input k > 0 of the pool signs another message: byte i XOR byte i%8 of k. */
    for (ull i = 0; i < op->msg_len; i++)
        op->msg[i] = (unsigned char)(i ^ (op->input_seed >> (8 * (i % 8))));
    if (strcmp(op->operation, "keygen") == 0) {
        op->fn = kg;
        op->call = ngcc_call_sig_keygen;
        return 0;
    }
    op->fn = kg;
    if (ngcc_call_sig_keygen(op) != 0)
        return fail(err, n, "setup: sig_keygen failed");
    op->fn = sg;
    if (ngcc_call_sig_sign(op) != 0)
        return fail(err, n, "setup: sig_sign failed");
    if (strcmp(op->operation, "sign") == 0) {
        op->call = ngcc_call_sig_sign;
        return 0;
    }
    if (strcmp(op->operation, "verify") != 0)
        return fail(err, n, "unknown sign operation %s", op->operation);
    op->fn = vf;
    if (ngcc_call_sig_verify(op) != 0)
        return fail(err, n, "verify: honest signature rejected, refusing to time");
    op->call = ngcc_call_sig_verify;
    return 0;
}

static int setup_hash(ngcc_op *op, void *lib, const ngcc_op_options *o, char *err, size_t n)
{
    const char *fn = o->hash_fn ? o->hash_fn : "CryptHash";
    if (strcmp(op->operation, "hash") != 0)
        return fail(err, n, "unknown hash operation %s", op->operation);
    if (need(lib, fn, &op->fn, err, n))
        return -1;
    op->call = strcmp(fn, "pseudoXOF") == 0 ? ngcc_call_xof : ngcc_call_hash;
    op->digest_bits = o->digest_bits;
    if (op->digest_bits <= 0) {
        ull bits = size_of(lib, "ngcc_digest_bits");
        op->digest_bits = bits ? (long)bits : 256;
    }
    op->digest_bytes = ((ull)op->digest_bits + 7) / 8;
    op->msg_len = op->input_bytes;
    op->msg = buf(op->msg_len);
    op->digest = buf(op->digest_bytes);
    if (!op->msg || !op->digest)
        return fail(err, n, "out of memory");
    for (ull i = 0; i < op->msg_len; i++)
        op->msg[i] = (unsigned char)(i * 131u + 7u);
    return 0;
}

int ngcc_op_prepare(ngcc_op *op, void *lib, const char *operation, const ngcc_op_options *o,
                    char *err, size_t err_len)
{
    memset(op, 0, sizeof *op);
    op->operation = operation;
    op->input_bytes = o->input_bytes;
    op->input_seed = o->input_seed;
    /* Seed first: every process starts the DRNG from the same state. */
    void *seed = sym(lib, "ngcc_seed");
    if (seed) {
        int (*f)(const unsigned char *, unsigned long long);
        unsigned char s[48];
        for (int i = 0; i < 48; i++)
            s[i] = (unsigned char)i;
        /* Input k of the pool: the last 8 seed bytes XOR k (little-endian), so key pairs,
         * ciphertexts and signatures differ per k while k = 0 keeps the guide's fixed seed. */
        for (int i = 0; i < 8; i++)
            s[40 + i] ^= (unsigned char)(o->input_seed >> (8 * i));
        memcpy(&f, &seed, sizeof f);
        if (f(s, sizeof s) != 0)
            return fail(err, err_len, "ngcc_seed failed");
    }
    op->category = o->category ? o->category : detect_category(lib);
    if (!op->category)
        return fail(err, err_len, "cannot determine category");
    /* What a category times comes from the registry (measurements/domain.py, through the
     * generated categories.h): anything else is refused before a symbol is resolved, so the
     * driver never times an operation the pages have no column for. */
    const ngcc_category_ops *spec = ngcc_category_find(op->category);
    if (!spec)
        return fail(err, err_len, "unknown category %s", op->category);
    if (!ngcc_operation_known(spec, operation))
        return fail(err, err_len, "unknown %s operation %s", op->category, operation);
    if (strcmp(op->category, "kem") == 0)
        return setup_kem(op, lib, err, err_len);
    if (strcmp(op->category, "sign") == 0)
        return setup_sign(op, lib, err, err_len);
    if (strcmp(op->category, "hash") == 0)
        return setup_hash(op, lib, o, err, err_len);
    if (strcmp(op->category, "kex") == 0)
        return ngcc_kex_setup(op, lib, err, err_len);
    return fail(err, err_len, "unknown category %s", op->category);
}

void ngcc_op_free(ngcc_op *op)
{
    ngcc_kex_free(op);
    unsigned char *all[] = {op->pk, op->sk, op->ct, op->ss, op->ss2, op->sig, op->msg, op->digest};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]);
    memset(op, 0, sizeof *op);
}
