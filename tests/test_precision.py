"""measurements.precision and its formatting: a target met or missed, and why."""

from __future__ import annotations

import math

from measurements.formatting import format_precision
from measurements.precision import GUIDE_REASON, precision_outcome


def test_adaptive_plan_met_or_stopped_by_budget_or_trial_limit():
    plan = {"precision": 0.01, "stopped_by": "precision"}
    met = precision_outcome(reached=0.008, plan=plan, campaign_target=0.05)
    assert (met.target, met.missed_reason, met.met) == (0.01, "", True)  # the plan's target wins
    budget = precision_outcome(
        reached=0.14, plan={**plan, "stopped_by": "budget"}, campaign_target=None
    )
    assert (budget.missed_reason, budget.met) == ("budget", False)
    limit = precision_outcome(
        reached=0.02, plan={**plan, "stopped_by": "max_trials"}, campaign_target=None
    )
    assert limit.missed_reason == "trial limit"


def test_guide_plan_is_held_to_the_campaign_target():
    outcome = precision_outcome(reached=0.03, plan={"trials": 5}, campaign_target=0.01)
    assert (outcome.target, outcome.missed_reason) == (0.01, GUIDE_REASON)
    assert precision_outcome(reached=0.003, plan={"trials": 5}, campaign_target=0.01).met is True


def test_no_target_and_no_precision():
    imported = precision_outcome(reached=0.02, plan={"trials": 5}, campaign_target=None)
    assert (imported.target, imported.missed_reason, imported.met) == (None, "", None)
    empty = precision_outcome(reached=math.inf, plan={"precision": 0.01}, campaign_target=None)
    assert (empty.reached, empty.missed_reason, empty.met) == (None, "no samples", None)


def test_format_precision():
    assert format_precision(0.14, 0.01, "budget") == "±14 %, target 1 % not reached: budget"
    assert format_precision(0.0082, 0.01) == "±0.82 %, target 1 % met"
    assert format_precision(0.0082, None) == "±0.82 %"
    assert format_precision(None, 0.01, "no samples") == "target 1 % not reached: no samples"
    assert format_precision(None, None) == "–"
