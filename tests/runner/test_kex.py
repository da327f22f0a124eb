"""Key exchange end to end: KAT replay, functional check, faulty fixtures, a measured campaign."""

from __future__ import annotations

import os
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from measurements.domain import KEX, KatStatus
from measurements.formatting import format_cycles, format_cycles_with_share
from measurements.models import Campaign, HashProfile, KexBandwidth, Measurement
from measurements.selectors.kex_transfer import CATALOG_SOURCE, KEX_MEASURED_NOTE, MEASURED_SOURCE
from measurements.selectors.pages.candidate import candidate_page
from measurements.selectors.pages.summary import system_summary
from runner.harness.kat import InstanceCheck, check_instance, functional_check
from runner.harness.manifest import load_manifest
from runner.services import CampaignSettings, campaign_start, submission_add, system_register
from tests.api.helpers import all_pages
from tests.runner.test_campaign_cluster import _campaign_done, wait_for, worker

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KEX_FIXTURES = {
    # fixture -> (final status, what its detail and log must say)
    "kex-unequal": (KatStatus.CRYPTOFAIL, "the shared secrets of A and B differ"),
    "kex-wrong-passes": (
        KatStatus.CRYPTOFAIL,
        "pass 2 returned 1 but kex_get_passes_num() = 3",
    ),
    "kex-overflow-msg": (
        KatStatus.OVERFLOW,
        "kex_generate_pass2_msg_b wrote past the m2 buffer (16 bytes declared, "
        "at least 4 more written)",
    ),
}


@pytest.fixture(scope="module")
def kex_checks(tmp_path_factory) -> dict[str, InstanceCheck]:
    """fixture name -> full check (guide, then harness-default) of every kex fixture."""
    root = tmp_path_factory.mktemp("kex-faulty")
    checks = {}
    for name in KEX_FIXTURES:
        manifest = load_manifest(EXAMPLES / f"faulty-{name}.toml")
        checks[name] = check_instance(manifest, manifest.instances[0], build_root=root)
    return checks


def test_harness_kat_passes_both_example_instances(tmp_path):
    out = StringIO()
    call_command(
        "harness_kat",
        str(EXAMPLES / "kex-ex1.toml"),
        build_root=tmp_path,
        no_fallback=True,
        stdout=out,
    )
    text = out.getvalue()
    assert "PASS 2" in text.splitlines()[-1]
    for label in ("dh3-2pass-toy", "dh3-3pass-toy"):
        log = (tmp_path / "kex-ex1" / "guide" / label / "kat" / f"{label}.log").read_text()
        assert f"RESULT kex-ex1 {label} PASS" in log
        # the replay reproduced the submitted file byte for byte (canonical text)
        out_file = tmp_path / "kex-ex1" / "guide" / label / "kat" / "run" / "output"
        produced = (out_file / f"KAT_KEX_{label}.txt").read_bytes()
        reference = EXAMPLES / "kex-ex" / "test_vectors" / f"KAT_KEX_{label}.txt"
        assert produced == reference.read_bytes()


def test_example_kat_files_follow_the_official_record_layout():
    text = (EXAMPLES / "kex-ex" / "test_vectors" / "KAT_KEX_dh3-3pass-toy.txt").read_text()
    records = text.split("\n\n")
    assert len([r for r in records if r.strip()]) == 10
    names = [line.split(" = ")[0] for line in records[0].splitlines()]
    assert names == [
        "Count", "Seed_Len", "Seed", "Pass_Num",
        "PKa_Len", "PKa", "SKa_Len", "SKa", "Init_Sta_Len", "Init_Sta",
        "PKb_Len", "PKb", "SKb_Len", "SKb", "Init_Stb_Len", "Init_Stb",
        "Pass1_Sta_Len", "Pass1_Sta", "M1_Len", "M1",
        "Pass2_Stb_Len", "Pass2_Stb", "M2_Len", "M2",
        "Pass3_Sta_Len", "Pass3_Sta", "M3_Len", "M3",
        "SS_Len", "SS",
    ]  # fmt: skip
    fields = dict(line.split(" = ") for line in records[0].splitlines())
    assert fields["Pass_Num"] == "3"
    assert (fields["M1_Len"], fields["M2_Len"], fields["M3_Len"]) == ("64", "96", "32")
    assert fields["Seed"] == fields["Seed"].upper() and len(fields["Seed"]) == 128


def test_kex_entry_points_come_from_the_domain_registry(tmp_path):
    manifest = load_manifest(EXAMPLES / "kex-ex1.toml")
    check = check_instance(manifest, manifest.instances[0], build_root=tmp_path, fallback=False)
    assert check.final.status is KatStatus.PASS
    from runner.harness.build import exported_symbols

    exported = exported_symbols(check.build.library)
    assert set(KEX.entry_points) <= set(exported)
    assert "kex_generate_pass2_msg_b" in exported
    # the functional check ran (not skipped) and saw the declared sizes
    fc = check.final.functional
    assert fc.status == "PASS"
    assert fc.sizes == {
        "passes": 2, "pk_len": 32, "sk_len": 32, "sta_len": 128, "stb_len": 128,
        "ss_len": 32, "msg_len": 64,
    }  # fmt: skip


@pytest.mark.parametrize("name", sorted(KEX_FIXTURES))
def test_faulty_kex_fixture_ends_with_its_status_and_log(kex_checks, name):
    status, reason = KEX_FIXTURES[name]
    check = kex_checks[name]
    assert check.final.status is status, check.final.detail
    # the guide attempt failed the same way, and harness-default was tried too
    assert [k.status for k in check.kats] == [status, status]
    assert check.final.guide_result == status.value
    assert reason in check.final.detail
    log = check.final.log_path.read_text()
    candidate = load_manifest(EXAMPLES / f"faulty-{name}.toml").candidate
    assert log.splitlines()[-1].startswith(f"RESULT {candidate} {name} {status}")
    assert reason in log
    # no fixture process survives, and the test process is alive
    assert not [p for p in os.listdir("/proc") if p.isdigit() and _is_fixture(p)]


def _is_fixture(pid: str) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"KAT_kex-" in cmdline or b"libkex-" in cmdline


def test_functional_check_flags_the_message_overflow_and_not_the_honest_toy(tmp_path):
    manifest = load_manifest(EXAMPLES / "faulty-kex-overflow-msg.toml")
    check = check_instance(manifest, manifest.instances[0], build_root=tmp_path, fallback=False)
    assert check.final.status is KatStatus.OVERFLOW
    # the KAT text itself matched: only the guard bytes show the overflow
    assert check.final.output_manifest.endswith("kex-overflow-msg/KAT_KEX_kex-overflow-msg.txt")
    assert "functional check:" in check.final.detail
    honest = functional_check(check.build.library.with_name("missing.so"), category="kex")
    assert honest.status == "LOADFAIL"


# --- a measured campaign through a real worker ------------------------------------------------

#: What the timing driver says when its checked exchange fails (native/driver/ops_kex.c).
REFUSALS = {
    "kex-unequal": "exchange: the secrets of A and B differ, refusing to time",
    "kex-wrong-passes": "exchange: a pass returned 1 before or after pass 3 declared by "
    "kex_get_passes_num, refusing to time",
}

#: ICCS calls of one exchange, counted by hand from examples/kex-ex/common/kex.c:
#: DRNG for a, b, x, y; pseudohash for K at B and at A; pseudoXOF for each secret; sm3hash for
#: both state identifiers, plus (three passes) tag B made and checked, tag A made and checked.
HAND_COUNT = {
    "dh3-2pass-toy": {"drng": 4, "pseudohash": 2, "pseudoXOF": 2, "sm3hash": 2},
    "dh3-3pass-toy": {"drng": 4, "pseudohash": 2, "pseudoXOF": 2, "sm3hash": 6},
}


def _run_campaign(tmp_path: Path) -> tuple[Campaign, dict[str, str]]:
    """The example and two faulty key exchanges, measured by a real box_worker."""
    system_register(key="box_k", cpu=0, allow_unfixed_host=True)
    submission_add(manifest_path=EXAMPLES / "kex-ex1.toml")
    faulty = {}
    for name in ("kex-unequal", "kex-wrong-passes"):
        manifest = EXAMPLES / f"faulty-{name}.toml"
        submission_add(manifest_path=manifest)
        faulty[load_manifest(manifest).candidate] = name
    quick = CampaignSettings(
        planner="guide",
        guide_overrides={"trials": 3, "target_trial_s": 0.02, "min_total_calls": 10},
        profile_overrides={"target_s": 0.02, "max_operations": 20},
        input_pool=2,
    )
    with worker("box_k", tmp_path):
        campaign = campaign_start(
            system_key="box_k", submission_keys=["kex-ex1", *faulty], settings=quick
        )
        wait_for(lambda: _campaign_done(campaign), 300, "the kex campaign to complete", tmp_path)
    assert campaign.status == Campaign.Status.COMPLETE
    return campaign, faulty


def _assert_faulty_refused(campaign: Campaign, faulty: dict[str, str]) -> None:
    """Each faulty key exchange ends with its status and log; nothing of it is timed."""
    for key, name in faulty.items():
        build = campaign.builds.get(instance__submission__key=key)
        assert build.kat_status == "CRYPTOFAIL"
        log = bytes(build.kat_log.content).decode()
        assert f"RESULT {key} {name} CRYPTOFAIL" in log
        assert KEX_FIXTURES[name][1] in log
        # CRYPTOFAIL libraries are timed as published practice does, but the driver's checked
        # exchange refuses a protocol that is not a key exchange: a failed record, no trials.
        step = campaign.steps.get(instance__submission__key=key, phase="measure")
        assert step.status == "failed"
        assert step.summary.startswith("timing failed: exchange: ")
        assert step.summary.endswith(REFUSALS[name])
        untimed = Measurement.objects.get(campaign=campaign, instance__submission__key=key)
        assert (untimed.status, untimed.trials.count()) == ("failed", 0)


def _assert_figures_match_api_and_hand_count(campaign: Campaign, client, body: str) -> None:
    api = all_pages(client, f"/api/v1/measurements/?campaign={campaign.key}&submission=kex-ex1")
    rows = {r["instance"]: r for r in api}
    assert set(rows) == set(HAND_COUNT)
    for label, expected in HAND_COUNT.items():
        m = Measurement.objects.get(campaign=campaign, instance__label=label)
        assert m.operation == "exchange" and m.status == "complete"
        trials = all_pages(client, rows[label]["trials_url"])
        assert len(trials) == 3
        # the page's exchange figure is Σ cycles / Σ calls over exactly the API's trials
        mean = sum(t["cycles"] for t in trials) / sum(t["measurements"] for t in trials)
        assert mean == pytest.approx(m.mean_cycles, rel=1e-9)
        # the figure links to its measurement detail page
        figure = re.escape(format_cycles(mean))
        assert re.search(rf'<td class="num"><a href="/measurements/\d+/">{figure}</a></td>', body)
        # calls per exchange: exact integers equal to the hand count
        profile = HashProfile.objects.get(campaign=campaign, instance__label=label)
        calls: dict[str, int] = {}
        for c in profile.calls.all():
            calls[c.fn] = calls.get(c.fn, 0) + c.calls
        assert profile.total_operations > 0
        assert {fn: n / profile.total_operations for fn, n in calls.items()} == expected
    # the API exposes the message lengths of one measured run
    assert rows["dh3-2pass-toy"]["kex"]["messages"] == [32, 32]
    assert rows["dh3-3pass-toy"]["kex"]["messages"] == [64, 96, 32]
    assert rows["dh3-3pass-toy"]["kex"]["pk_a_bytes"] == 64


def _assert_transferred_bytes(campaign: Campaign, body: str) -> None:
    """§6 and the summary: the catalog where it has a row, else the measured run (said so)."""
    sizes = [[c.text for c in row] for row in candidate_page("box_k", "kex-ex1").sizes.rows]
    assert sizes == [
        # 32 + 32 message bytes of one run + 32 + 32 public-key bytes (no catalog row)
        ["dh3-2pass-toy", "2", "64", "64", "128", MEASURED_SOURCE],
        ["dh3-3pass-toy", "3", "128", "200", "328", CATALOG_SOURCE],
    ]
    assert MEASURED_SOURCE in body and CATALOG_SOURCE in body
    # The summary's key-exchange section: exchange cycles (sym %) and transferred (B).
    section = next(
        s for s in system_summary(campaign.system).sections if s.spec.anchor == "key-exchange"
    )
    assert section.headers[3:5] == ["exchange cycles (sym %)", "transferred (B)"]
    summary = {(r.submission_key, r.label): r for r in section.rows}
    for label, transferred, note in (
        ("dh3-2pass-toy", "64", KEX_MEASURED_NOTE),
        ("dh3-3pass-toy", "200", "–"),
    ):
        row = summary[("kex-ex1", label)]
        m = Measurement.objects.get(campaign=campaign, instance__label=label)
        profile = HashProfile.objects.get(campaign=campaign, instance__label=label)
        cycles = format_cycles_with_share(m.mean_cycles, profile.hash_share, m.measurements)
        assert cycles.startswith(f"{format_cycles(m.mean_cycles)} (")
        assert row.cells == [cycles, transferred]
        assert row.notes == note


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_kex_campaign_through_box_worker(tmp_path, settings, client):
    settings.NGCC_WORK_DIR = tmp_path / "work"
    campaign, faulty = _run_campaign(tmp_path)
    _assert_faulty_refused(campaign, faulty)
    # A catalog row for one instance: its accounting wins; the other follows the measured run.
    KexBandwidth.objects.create(
        candidate="kex-ex1",
        instance_label="dh3-3pass-toy",
        pk_a_bytes=64,
        pk_b_bytes=64,
        protocol_message_bytes=200,
    )
    body = client.get("/performance/box_k/kex-ex1/").content.decode()
    _assert_figures_match_api_and_hand_count(campaign, client, body)
    _assert_transferred_bytes(campaign, body)
