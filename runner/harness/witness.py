"""The parent's own witness of a timing process, checked against the record it sent.

The record of an ``ngcc-time`` process arrives on a pipe the parent opened
(``--result-fd``), not on stdout; the candidate library runs inside that same
process, so it *could* still write there.  What it cannot change is what the
parent measures from outside: the process's CPU time (``wait4`` rusage of the
namespace's pid 1, which is the driver itself) and how long it existed.  A
record is accepted only when

- it answers the request (the iterations and warm-ups asked for; no trial with
  more calls than asked);
- its timed seconds fit within the life of the process (wall clock measured by
  the parent, plus a small slack for the clock reads); each trial's CPU time and
  wait for its core fit within its own wall time, and the CPU time the trials
  claim fits within the CPU time the parent measured (for a process that ended
  by itself);
- on a long run, the time it accounts for (timed calls, setup, warm-ups and the
  stack probe's call) is at least :data:`MIN_ACCOUNTED_SHARE` of the user CPU
  time the parent measured beyond :data:`FIXED_OVERHEAD_S` (what every process
  spends on loading, choosing and calibrating its counter and painting the
  stack, ~0.15 s here, which the record does not itemise): a library that
  burns CPU and then reports fast calls is caught.

A record that fails is :class:`InconsistentRecord`: stored with the status
``INCONSISTENT`` and its evidence, never as figures.  What this does not
guarantee: a library may always slow itself down or disturb its own timing
(it may also claim to have waited for its core, which buys it at most two
re-runs of a trial: a choice among its own trials, each discarded one kept in
the measurement's evidence as ``disturbed_trials``), and on a short run (less
user CPU than :data:`FIXED_OVERHEAD_S`) a forged record
claiming less work than the process really did cannot be told apart.
"""

from __future__ import annotations

from runner.harness.driver_output import DriverRun
from runner.harness.perf_witness import perf_refusal
from runner.harness.sandbox import SandboxResult

FIXED_OVERHEAD_S = 0.3
MIN_ACCOUNTED_SHARE = 0.5
WALL_SLACK_S = 0.05
#: What a trial's CPU and wait windows may exceed its wall window by (the reads around it).
TRIAL_WINDOW_SLACK_S = 0.001


class InconsistentRecord(ValueError):
    """The record disagrees with the request or with the parent's witness."""


def check_request(run: DriverRun, *, iterations: int, warmups: int) -> None:
    if run.iterations != iterations or run.warmups != warmups:
        raise InconsistentRecord(
            f"the record answers another request ({run.iterations} iterations, "
            f"{run.warmups} warm-ups; asked {iterations}, {warmups})"
        )
    for i, trial in enumerate(run.trials):
        if trial["measurements"] > iterations:
            raise InconsistentRecord(
                f"trial {i} reports {trial['measurements']} calls, {iterations} were asked"
            )


def accounted_seconds(run: DriverRun) -> tuple[float, float]:
    """(timed seconds, seconds the record accounts for in all)."""
    timed = sum(t["seconds"] for t in run.trials)
    calls = sum(t["measurements"] for t in run.trials)
    per_call = timed / calls if calls else 0.0
    extra_calls = run.warmups + (1 if run.stack_high_water_bytes is not None else 0)
    return timed, timed + (run.setup_seconds or 0.0) + extra_calls * per_call


def _check_trial_windows(run: DriverRun) -> None:
    """A trial's CPU time and its wait for the core fall within its wall time (their windows
    enclose it by the cost of a few clock and file reads): more is a forged record."""
    for i, trial in enumerate(run.trials):
        bound = trial["seconds"] + TRIAL_WINDOW_SLACK_S
        for key, what in (("cpu_seconds", "on the CPU"), ("wait_seconds", "waiting for its core")):
            value = trial.get(key)
            if value is not None and value > bound:
                raise InconsistentRecord(
                    f"trial {i} reports {value:.6f} s {what} in {trial['seconds']:.6f} s"
                )


def check_witness(run: DriverRun, res: SandboxResult) -> dict[str, float]:
    """Raise :class:`InconsistentRecord` unless the record fits what the parent measured."""
    timed, accounted = accounted_seconds(run)
    witness = {
        "cpu_s": round(res.cpu_seconds, 6),
        "wall_s": round(res.wall_seconds, 6),
        "timed_s": timed,
        "accounted_s": accounted,
        # The hardware witness (user-mode cycles counted by the kernel on the child): why it
        # is not available here, or that it is and is not used yet.
        "perf_cycles": perf_refusal() or "available, not used yet",
    }
    if timed > res.wall_seconds + WALL_SLACK_S:
        raise InconsistentRecord(
            f"the record reports {timed:.3f} s of timed calls in a process that lived "
            f"{res.wall_seconds:.3f} s"
        )
    _check_trial_windows(run)
    on_cpu = sum(t.get("cpu_seconds") or 0.0 for t in run.trials)
    witness["trials_cpu_s"] = round(on_cpu, 6)
    # Only for a process that ended by itself: one killed at its limit may have been reaped
    # after the sandbox's own process, and then its CPU time is missing from the parent's count.
    if res.ok and on_cpu > res.cpu_seconds + WALL_SLACK_S:
        raise InconsistentRecord(
            f"the record reports {on_cpu:.3f} s of its trials on the CPU in a process that "
            f"used {res.cpu_seconds:.3f} s"
        )
    # User time: kernel time (page faults of the painted stack, syscalls) is not the
    # library's computing, and a process descheduled under load accrues none.
    cpu = res.cpu_user_seconds
    beyond = cpu - FIXED_OVERHEAD_S
    if beyond > 0 and accounted < MIN_ACCOUNTED_SHARE * beyond:
        raise InconsistentRecord(
            f"the record accounts for {accounted:.4f} s of the {cpu:.3f} s of user CPU time "
            f"measured from outside (at least {100 * MIN_ACCOUNTED_SHARE:.0f} % of what exceeds "
            f"the {FIXED_OVERHEAD_S} s every process spends outside its calls expected)"
        )
    return witness
