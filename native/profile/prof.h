/* Profile of the ICCS symmetric primitives inside a candidate library.
 * The wrapper objects (wrap_*.c) and prof_core.c are linked INTO the
 * candidate library with -Wl,--wrap=<fn>; ngcc-prof drives them through the
 * exported ngcc_prof_* functions. */
#ifndef NGCC_PROF_H
#define NGCC_PROF_H

#include <stdint.h>

#include "../counter/counter.h"

enum { NGCC_FN_PSEUDOHASH, NGCC_FN_PSEUDOXOF, NGCC_FN_SM3HASH, NGCC_FN_DRNG, NGCC_FN_COUNT };

/* Internal (hidden): used by the wrappers.  enter returns 0 when profiling
 * is off, 1 for an outermost call (t0 set), 2 for a nested call. */
NGCC_HIDDEN int ngcc_prof_enter(uint64_t *t0);
NGCC_HIDDEN void ngcc_prof_leave(int kind, int fn, unsigned long long in_bits,
                                 unsigned long long out_bits, uint64_t t0);

/* Exported control interface (default visibility; looked up with dlsym). */
int ngcc_prof_init(const char *forced_counter);
void ngcc_prof_enable(int on);
void ngcc_prof_reset(void);
uint64_t ngcc_prof_now(void);
const char *ngcc_prof_tick_source(void);
double ngcc_prof_tick_hz(void);
double ngcc_prof_tick_overhead(void);
unsigned long long ngcc_prof_overflow_calls(void);
unsigned long ngcc_prof_entries(void);
/* Entry i: returns 0 and fills the fields, -1 past the end. */
int ngcc_prof_entry(unsigned long i, const char **fn, unsigned long long *in_bits,
                    unsigned long long *out_bits, unsigned long long *calls,
                    unsigned long long *ticks);

#endif
