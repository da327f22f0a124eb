#include <string.h>

#include "prof.h"

/* Fixed-size open-addressing table: no allocation inside a wrapped call. */
#define SLOTS 4096u

typedef struct {
    int used, fn;
    unsigned long long in_bits, out_bits, calls, ticks;
} slot;

static slot table[SLOTS];
static unsigned long order[SLOTS]; /* insertion order, for stable output */
static unsigned long n_used;
static unsigned long long overflow_calls;
static ngcc_counter ticks;
static int ready, enabled;
/* Thread-local depth: a wrapped call made while another wrapped call is in
 * progress (e.g. pseudoXOF calling sm3hash across objects) is not counted:
 * its time is already inside the outer call. */
static _Thread_local int depth;

static const char *const names[NGCC_FN_COUNT] = {"pseudohash", "pseudoXOF", "sm3hash", "drng"};

int ngcc_prof_init(const char *forced)
{
    char err[128];
    if (ngcc_tick_init(&ticks, forced, err, sizeof err) != 0)
        return -1;
    ready = 1;
    return 0;
}

void ngcc_prof_enable(int on) { enabled = on && ready; }

void ngcc_prof_reset(void)
{
    memset(table, 0, sizeof table);
    n_used = 0;
    overflow_calls = 0;
}

uint64_t ngcc_prof_now(void) { return ngcc_counter_read(&ticks); }
const char *ngcc_prof_tick_source(void) { return ready ? ticks.name : NULL; }
double ngcc_prof_tick_hz(void) { return ticks.hz; }
double ngcc_prof_tick_overhead(void) { return ticks.overhead_cycles; }
unsigned long long ngcc_prof_overflow_calls(void) { return overflow_calls; }
unsigned long ngcc_prof_entries(void) { return n_used; }

int ngcc_prof_enter(uint64_t *t0)
{
    if (!enabled)
        return 0;
    if (depth++ > 0)
        return 2;
    *t0 = ngcc_counter_read(&ticks);
    return 1;
}

static void record(int fn, unsigned long long in, unsigned long long out, uint64_t dt)
{
    unsigned long h = (unsigned long)((in * 0x9e3779b97f4a7c15ull) ^ (out * 0xff51afd7ull) ^
                                      (unsigned long long)fn);
    for (unsigned long k = 0; k < SLOTS; k++) {
        slot *s = &table[(h + k) % SLOTS];
        if (!s->used) {
            s->used = 1;
            s->fn = fn;
            s->in_bits = in;
            s->out_bits = out;
            order[n_used++] = (h + k) % SLOTS;
        }
        if (s->fn == fn && s->in_bits == in && s->out_bits == out) {
            s->calls++;
            s->ticks += dt;
            return;
        }
    }
    overflow_calls++; /* table full: counted, reported, never silently lost */
}

void ngcc_prof_leave(int kind, int fn, unsigned long long in_bits, unsigned long long out_bits,
                     uint64_t t0)
{
    if (kind == 0)
        return;
    /* Read the clock first: the bookkeeping below is not the callee's time. */
    uint64_t t1 = kind == 1 ? ngcc_counter_read(&ticks) : 0;
    depth--;
    if (kind == 1)
        record(fn, in_bits, out_bits, t1 - t0);
}

int ngcc_prof_entry(unsigned long i, const char **fn, unsigned long long *in_bits,
                    unsigned long long *out_bits, unsigned long long *calls,
                    unsigned long long *ticks_out)
{
    if (i >= n_used)
        return -1;
    const slot *s = &table[order[i]];
    *fn = names[s->fn];
    *in_bits = s->in_bits;
    *out_bits = s->out_bits;
    *calls = s->calls;
    *ticks_out = s->ticks;
    return 0;
}
