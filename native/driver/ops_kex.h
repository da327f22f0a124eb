/* Key exchange (category "kex"): one complete protocol run as one timed operation. */
#ifndef NGCC_OPS_KEX_H
#define NGCC_OPS_KEX_H

#include <stdio.h>

#include "ops.h"

/* Most passes a protocol may declare (kex_generate_pass<N>_msg_<a|b>, N = 1..this). */
#define NGCC_KEX_MAX_PASSES 16

/* Resolve the kex_* interface, allocate every buffer, run one checked exchange (recording the
 * message lengths) and set op->call.  Returns 0, or -1 with a message in err. */
int ngcc_kex_setup(ngcc_op *op, void *lib, char *err, size_t err_len);
/* One exchange: both inits, every pass, both derivations, secrets compared.  Returns 0, -1 when
 * a call failed, -5 when the secrets differ, -6 when the pass count disagrees with
 * kex_get_passes_num. */
int ngcc_call_kex_exchange(ngcc_op *op);
/* Print `"kex":{...},` (sizes and the message lengths of the checked run); nothing for the other
 * categories. */
void ngcc_kex_print(FILE *out, const ngcc_op *op);
void ngcc_kex_free(ngcc_op *op);

#endif
