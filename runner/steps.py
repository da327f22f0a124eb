"""What each campaign step does: call the native harness, then store through the services.

Each executor returns a `StepOutcome`; `runner.tasks.run_step` stores it and closes the step in
one transaction. Candidate code only runs inside `runner.harness.sandbox` (through the harness's
build, kat, timing and profile modules).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from django.conf import settings

from measurements.formatting import format_cycles, format_seconds, format_share
from measurements.models import Campaign, KatStatus
from runner.models import CampaignStep, Phase
from runner.services import CampaignSettings

#: Statuses with which an instance is still timed (flagged on its page).
TIMED_KAT_STATUSES = {
    KatStatus.PASS,
    KatStatus.MISMATCH,
    KatStatus.NOKAT,
    KatStatus.CRYPTOFAIL,
}


class StepFailed(RuntimeError):
    """The step ran but its candidate failed: recorded, the campaign goes on."""

    def __init__(self, summary: str, log: str = "") -> None:
        super().__init__(summary)
        self.summary = summary
        self.log = log


@dataclass
class StepOutcome:
    summary: str
    result: dict[str, Any] = field(default_factory=dict)
    store: Callable[[], None] | None = None  # writes to run inside the step's transaction
    log: str = ""
    failed: bool = False  # the candidate failed, but what it produced is still stored


def work_dir(campaign: Campaign) -> Path:
    path = Path(settings.NGCC_WORK_DIR) / "campaigns" / campaign.key
    path.mkdir(parents=True, exist_ok=True)
    return path


def tools_dir() -> Path:
    path = Path(settings.NGCC_WORK_DIR) / "tools"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _manifest_and_instance(step: CampaignStep):
    from runner.harness.manifest import load_manifest

    manifest = load_manifest(step.instance.submission.manifest["path"])
    return manifest, manifest.instance(step.instance.label)


def _settings(step: CampaignStep) -> CampaignSettings:
    return CampaignSettings.from_stored(step.campaign.settings)


def _kat_step_result(step: CampaignStep) -> dict[str, Any]:
    kat = step.campaign.steps.filter(instance=step.instance, phase=Phase.KAT).first()
    return kat.result if kat else {}


def _timed_library(step: CampaignStep) -> Path:
    result = _kat_step_result(step)
    status = result.get("kat")
    if not result.get("library") or status not in TIMED_KAT_STATUSES:
        raise StepFailed(f"not timed: KAT status {status or 'unknown'}")
    return Path(result["library"])


# --- build ------------------------------------------------------------------------------------


def run_build(step: CampaignStep) -> StepOutcome:
    from runner.harness.build import build_instance
    from runner.store import guide_build_store

    manifest, instance = _manifest_and_instance(step)
    result = build_instance(
        manifest, instance, flags_label="guide", build_root=work_dir(step.campaign) / "build"
    )

    def store() -> None:
        guide_build_store(campaign=step.campaign, instance=step.instance, build=result)

    summary = "built with guide flags" if result.ok else f"guide build failed: {result.error}"
    return StepOutcome(summary=summary, result={"ok": result.ok}, store=store, log=result.error)


# --- KAT --------------------------------------------------------------------------------------


def run_kat(step: CampaignStep) -> StepOutcome:
    from runner.harness.kat import check_instance
    from runner.store import instance_check_store

    manifest, instance = _manifest_and_instance(step)
    check = check_instance(manifest, instance, build_root=work_dir(step.campaign) / "build")
    build, kat = check.build, check.final
    status = kat.status.value

    def store() -> None:
        instance_check_store(campaign=step.campaign, instance=step.instance, check=check)

    result = {
        "kat": status,
        "flags": build.flags_label,
        "library": str(build.library or ""),
        # The profile relink needs the candidate objects and the shim (it defines drng_algorithm).
        "objects": [str(o) for o in [*build.objects, build.shim_object] if o],
        "link_libs": list(build.link_libs),
    }
    log = (
        kat.log_path.read_text(errors="replace") if kat.log_path and kat.log_path.is_file() else ""
    )
    return StepOutcome(
        summary=f"KAT {status} ({build.flags_label})" + (f": {kat.detail}" if kat.detail else ""),
        result=result,
        store=store,
        log=log[-20000:],
    )


# --- calibrate / measure / profile ------------------------------------------------------------


def timing_driver() -> Path:
    """``ngcc-time``, built once per source digest under the work dir's tools/."""
    from runner.harness.timing import build_driver

    return build_driver(out_dir=tools_dir())


def _timing_kwargs(step: CampaignStep) -> dict[str, Any]:
    from runner.harness.timing import AdaptiveParams, GuideParams

    s = _settings(step)
    guide = replace(GuideParams(max_operation_s=s.budget_per_op_s), **(s.guide_overrides or {}))
    adaptive_changes = {
        "precision": s.target_precision,
        "budget_s": s.budget_per_op_s,
        **(s.adaptive_overrides or {}),
    }
    adaptive = AdaptiveParams()
    adaptive = replace(
        adaptive, **{k: v for k, v in adaptive_changes.items() if hasattr(adaptive, k)}
    )
    return {
        "planner": s.planner,
        "guide": guide,
        "adaptive": adaptive,
        "cpu": s.cpu,
        "counter": s.counter,
        "nominal_hz": nominal_clock_hz(step.campaign.environment),
    }


def nominal_clock_hz(environment: dict[str, Any]) -> float | None:
    """The fixed clock of a pinned host (cpufreq minimum = maximum), for disturbed-trial checks."""
    low, high = environment.get("cpufreq_min_khz"), environment.get("cpufreq_max_khz")
    try:
        return float(high) * 1000 if low is not None and low == high else None
    except (TypeError, ValueError):
        return None


def run_calibrate(step: CampaignStep) -> StepOutcome:
    """One uncalibrated call: orders the measurements cheapest first, plans the guide trials."""
    from runner.harness.sandbox import Limits
    from runner.harness.timing import TimingError, calibrate_operation

    library = _timed_library(step)
    s = _settings(step)
    budget = float(s.budget_per_op_s)
    try:
        call_s, counter = calibrate_operation(
            driver=timing_driver(),
            library=library,
            operation=step.operation,
            input_bytes=step.input_bytes,
            cpu=s.cpu,
            counter=s.counter,
            digest_bits=_digest_bits(step),
            limits=Limits(wall_seconds=budget, cpu_seconds=int(budget) + 1),
            timeout_s=budget,
        )
    except TimingError as exc:
        raise StepFailed(f"calibration failed: {exc}") from exc

    def store() -> None:
        campaign = Campaign.objects.select_for_update().get(pk=step.campaign_id)
        if not campaign.counter:  # the method page shows the counter the driver chose
            campaign.counter = counter
            campaign.save(update_fields=["counter"])

    return StepOutcome(
        summary=f"one call takes {format_seconds(call_s)}",
        result={"call_s": call_s, "counter": counter},
        store=store,
    )


def _call_seconds(step: CampaignStep) -> float | None:
    """Seconds of the calibrate step's uncalibrated call (None if it has none)."""
    calibration = step.campaign.steps.filter(
        instance=step.instance,
        phase=Phase.CALIBRATE,
        operation=step.operation,
        input_bytes=step.input_bytes,
    ).first()
    return (calibration.result if calibration else {}).get("call_s")


def run_measure(step: CampaignStep) -> StepOutcome:
    from runner.harness.timing import measure_operation
    from runner.store import measured_timing_store

    library = _timed_library(step)
    measured = measure_operation(
        driver=timing_driver(),
        library=library,
        operation=step.operation,
        input_bytes=step.input_bytes,
        digest_bits=_digest_bits(step),
        calibration_call_s=_call_seconds(step),
        **_timing_kwargs(step),
    )
    kat = _kat_step_result(step)
    candidate, label = step.instance.submission.key, step.instance.label
    pool = _input_pool(step, measured, library) if not measured.error else {}
    record = measured.to_record(
        candidate=candidate,
        label=label,
        instance=step.instance.api_instance,
        kat=kat.get("kat", ""),
        flags=kat.get("flags", ""),
        library=str(library),
        environment=step.campaign.environment,
        input_pool=pool,
    )

    def store() -> None:
        measured_timing_store(campaign=step.campaign, record=record, instance=step.instance)

    if measured.error:
        # The failed record (with its driver output) is still stored as evidence.
        return StepOutcome(
            summary=f"timing failed: {measured.error}",
            result={"error": measured.error},
            store=store,
            failed=True,
        )
    mean = record.aggregates.mean_cycles if record.aggregates else None
    return StepOutcome(
        summary=f"{record.measurements} calls, mean {format_cycles(mean)} cycles",
        result={"measurements": record.measurements, "wall_s": measured.wall_s},
        store=store,
    )


def _input_pool(step: CampaignStep, measured: Any, library: Path) -> dict[str, Any]:
    """The operation timed over the campaign's seeded pool of inputs (none for hash lengths).

    Each input is one sandboxed process of about a quarter of a fixed-input process, run right
    after a reference process of the fixed input; inputs are judged by their ratio to that
    reference and the noise by the ratios of consecutive references (`input_pool`). A failing
    input is recorded as the pool's error (the fixed-input figure stands); an input whose record
    fails the parent's witness makes the whole measurement INCONSISTENT."""
    from runner.harness.input_pool import floor_of, measure_input_pool, process_spread_relative
    from runner.harness.timing import InconsistentTiming, TimingError, run_samples

    size = _settings(step).input_pool
    plan = measured.plan
    if not size or step.input_bytes or not plan.get("iterations_per_trial"):
        return {}
    floors = [floor_of(g) for g in run_samples(measured.runs) if g]
    batch = int(plan.get("batch_calls") or 1)
    iterations = max(4 * batch, int(plan["iterations_per_trial"]) // 4)
    try:
        pool = measure_input_pool(
            driver=timing_driver(),
            library=library,
            operation=step.operation,
            iterations=iterations,
            batch=batch,
            pool_size=size,
            cpu=_settings(step).cpu,
            counter=_settings(step).counter,
            process_spread_relative=process_spread_relative(floors),
        )
    except InconsistentTiming as exc:
        measured.discard_as_inconsistent(exc)
        return {}
    except TimingError as exc:
        return {"pool_size": size, "error": str(exc)}
    return pool.as_dict()


def _digest_bits(step: CampaignStep) -> int | None:
    """Hash instances are timed at their own output length (from the manifest)."""
    if step.operation != "hash":
        return None
    _manifest, instance = _manifest_and_instance(step)
    return instance.digest_bits


def run_profile(step: CampaignStep) -> StepOutcome:
    from runner.harness.profile import (
        ProfileError,
        ProfileParams,
        build_profile_tools,
        link_profile_library,
        profile_operation,
    )
    from runner.store import measured_profile_store

    _timed_library(step)
    kat = _kat_step_result(step)
    tools = build_profile_tools(out_dir=tools_dir())
    prof_dir = work_dir(step.campaign) / "profile" / step.instance.submission.key
    prof_dir.mkdir(parents=True, exist_ok=True)
    library, wrapped, _command = link_profile_library(
        objects=[Path(o) for o in kat.get("objects", [])],
        out=prof_dir / f"lib{step.instance.label}-prof.so",
        tools=tools,
        link_libs=kat.get("link_libs", []),
    )
    run_settings = _settings(step)
    params = replace(ProfileParams(), **(run_settings.profile_overrides or {}))
    try:
        profile = profile_operation(
            tools=tools,
            library=library,
            operation=step.operation,
            candidate=step.instance.submission.key,
            label=step.instance.label,
            call_s=_call_seconds(step) or 0.001,
            input_bytes=step.input_bytes,
            params=params,
            cpu=run_settings.cpu,
            counter=run_settings.counter,
            digest_bits=_digest_bits(step),
        )
    except ProfileError as exc:
        raise StepFailed(f"profile failed: {exc}") from exc

    def store() -> None:
        measured_profile_store(campaign=step.campaign, profile=profile, instance=step.instance)

    return StepOutcome(
        summary=f"wrapped {', '.join(wrapped) or 'nothing'}; hash share "
        + format_share(profile.hash_share),
        result={"wrapped": wrapped},
        store=store,
    )


EXECUTORS: dict[str, Callable[[CampaignStep], StepOutcome]] = {
    Phase.BUILD: run_build,
    Phase.KAT: run_kat,
    Phase.CALIBRATE: run_calibrate,
    Phase.MEASURE: run_measure,
    Phase.PROFILE: run_profile,
}
