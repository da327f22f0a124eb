/* Thin adapters from ngcc_op to the public NGCC interfaces.  Each does no work
 * besides the call itself: they run inside the timed region. */
#include "ops_calls.h"

#include <string.h>

typedef unsigned char uc;

/* Convert the stored object pointer to a function pointer (memcpy keeps this
 * well defined under -Wpedantic). */
#define FN(type, op)                                                                     \
    type f;                                                                              \
    memcpy(&f, &(op)->fn, sizeof f)

typedef int (*keygen_fn)(uc *, ull *, uc *, ull *);
typedef int (*kem_enc_fn)(uc *, ull, uc *, ull *, uc *, ull *);
typedef int (*kem_dec_fn)(uc *, ull, uc *, ull, uc *, ull *);
typedef int (*sign_fn)(uc *, ull, uc *, ull, uc *, ull *);
typedef int (*verify_fn)(uc *, ull, uc *, ull, uc *, ull);
typedef int (*hash_fn)(int, const uc *, ull, uc *);
typedef int (*xof_fn)(ull, const uc *, ull, uc *);

int ngcc_call_kem_keygen(ngcc_op *op)
{
    FN(keygen_fn, op);
    return f(op->pk, &op->pk_len, op->sk, &op->sk_len);
}

int ngcc_call_kem_enc(ngcc_op *op)
{
    FN(kem_enc_fn, op);
    return f(op->pk, op->pk_len, op->ss, &op->ss_len, op->ct, &op->ct_len);
}

int ngcc_call_kem_dec(ngcc_op *op)
{
    FN(kem_dec_fn, op);
    return f(op->sk, op->sk_len, op->ct, op->ct_len, op->ss, &op->ss_len);
}

int ngcc_call_sig_keygen(ngcc_op *op)
{
    FN(keygen_fn, op);
    return f(op->pk, &op->pk_len, op->sk, &op->sk_len);
}

int ngcc_call_sig_sign(ngcc_op *op)
{
    FN(sign_fn, op);
    op->sig_len = op->sig_bytes; /* capacity in, length out */
    return f(op->sk, op->sk_len, op->msg, op->msg_len, op->sig, &op->sig_len);
}

int ngcc_call_sig_verify(ngcc_op *op)
{
    FN(verify_fn, op);
    return f(op->pk, op->pk_len, op->sig, op->sig_len, op->msg, op->msg_len);
}

int ngcc_call_hash(ngcc_op *op)
{
    FN(hash_fn, op);
    return f((int)op->digest_bits, op->msg, op->msg_len * 8u, op->digest);
}

int ngcc_call_xof(ngcc_op *op)
{
    FN(xof_fn, op);
    return f((ull)op->digest_bits, op->msg, op->msg_len * 8u, op->digest);
}
