/* One call of each interface function, through the pointer in op->fn. */
#ifndef NGCC_OPS_CALLS_H
#define NGCC_OPS_CALLS_H

#include "ops.h"

int ngcc_call_kem_keygen(ngcc_op *op);
int ngcc_call_kem_enc(ngcc_op *op);
int ngcc_call_kem_dec(ngcc_op *op);
int ngcc_call_sig_keygen(ngcc_op *op);
int ngcc_call_sig_sign(ngcc_op *op);
int ngcc_call_sig_verify(ngcc_op *op);
int ngcc_call_hash(ngcc_op *op);
int ngcc_call_xof(ngcc_op *op);

#endif
