"""Did a measurement reach its campaign's precision target, and if not, why (no Django).

The precision reached is how far (relative) the next campaign's figure may land as far as this
campaign can tell: the 95 % CI half-width of the median per-call value widened by √2, the same
figure the adaptive planner stops on. The box's own campaign-to-campaign spread widens the
interval a page shows (`Measurement.next_campaign_bounds`) but is not held against the target:
no campaign can plan it away. The target is the planner's `precision` recorded in the plan, else
the campaign's `target_precision`; imported campaigns without samples or target have neither.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: why a target was not reached, from the plan's `stopped_by` (adaptive planner)
MISSED_REASONS = {"budget": "budget", "max_trials": "trial limit"}
#: the guide planner runs a fixed number of trials whatever the precision
GUIDE_REASON = "guide plan (fixed trials)"


@dataclass(frozen=True)
class PrecisionOutcome:
    reached: float | None
    target: float | None
    missed_reason: str  # "" when the target was met or there is none

    @property
    def met(self) -> bool | None:
        """True/False against the target; None without a target or a precision reached."""
        if self.target is None or self.reached is None:
            return None
        return self.reached <= self.target


def precision_outcome(
    *, reached: float | None, plan: Mapping[str, Any], campaign_target: float | None
) -> PrecisionOutcome:
    """The outcome for a measurement whose CI half-width (relative) is `reached`."""
    if reached is not None and not math.isfinite(reached):
        reached = None
    target = plan.get("precision") or campaign_target
    if target is None:
        return PrecisionOutcome(reached, None, "")
    target = float(target)
    if reached is not None and reached <= target:
        return PrecisionOutcome(reached, target, "")
    if reached is None:
        reason = "no samples"
    elif "stopped_by" in plan:
        stopped = str(plan["stopped_by"])
        reason = MISSED_REASONS.get(stopped, stopped)
    else:
        reason = GUIDE_REASON
    return PrecisionOutcome(reached, target, reason)
