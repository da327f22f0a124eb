/* Operations of an instance library: set up outside the timed region, then one
 * call per `ngcc_op.call`.  Shared by ngcc-time and ngcc-prof. */
#ifndef NGCC_OPS_H
#define NGCC_OPS_H

#include <stddef.h>

typedef unsigned long long ull;

typedef struct ngcc_op ngcc_op;

typedef struct {
    const char *category; /* NULL: ask the library (ngcc_category) or probe */
    const char *hash_fn;  /* hash entry point: CryptHash (default), sm3hash, ... */
    ull input_bytes;      /* hash message length */
    long digest_bits;     /* <= 0: library getter ngcc_digest_bits, else 256 */
    ull input_seed;       /* 0: the guide's fixed inputs; k > 0: input k of a seeded pool */
} ngcc_op_options;

struct ngcc_op {
    const char *category; /* "kem", "sign", "hash", "kex" */
    const char *operation;
    int (*call)(ngcc_op *op); /* one operation; 0 = success */
    void *fn;                 /* entry point of the timed function */
    ull input_bytes;
    ull pk_bytes, sk_bytes, ct_bytes, ss_bytes, sig_bytes, digest_bytes;
    long digest_bits;
    ull input_seed; /* 0: the guide's fixed inputs */
    unsigned char *pk, *sk, *ct, *ss, *ss2, *sig, *msg, *digest;
    ull pk_len, sk_len, ct_len, ss_len, sig_len, msg_len;
    void *kex; /* key exchange: entry points, buffers and lengths (ops_kex.c) */
};

/* Seed the DRNG (bytes 00..2f), determine the category, resolve symbols and
 * prepare inputs.  Returns 0, or -1 with a message in err. */
int ngcc_op_prepare(ngcc_op *op, void *lib, const char *operation, const ngcc_op_options *o,
                    char *err, size_t err_len);
void ngcc_op_free(ngcc_op *op);

#endif
