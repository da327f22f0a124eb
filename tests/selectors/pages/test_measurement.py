"""Measurement detail page builder: trials, interval, links (shared arm_1 data and factories)."""

from __future__ import annotations

import math

import pytest
from django.http import Http404

from measurements.models import Measurement
from measurements.selectors.pages.measurement import binomial_coverage, measurement_page
from tests.factories import MeasurementFactory, TrialFactory


def _polarlac_keygen(arm1) -> Measurement:
    return Measurement.objects.get(
        campaign=arm1, instance__label="POLARLAC-128", operation="keygen"
    )


def test_detail_of_an_imported_measurement(arm1, django_assert_max_num_queries):
    m = _polarlac_keygen(arm1)
    with django_assert_max_num_queries(2):
        page = measurement_page(m.pk)
    assert page.title == "kem-30 POLARLAC-128 keygen on arm_1"
    assert [t.cycles for t in page.trials] == [
        "1388763550", "1391329160", "1390152185", "1389486737", "1389382023",
    ]  # fmt: skip
    assert [t.cycles_per_call for t in page.trials] == ["134.7 k", "134.9 k", "134.8 k"] + [
        "134.7 k"
    ] * 2
    assert {t.calls for t in page.trials} == {"10312"}
    # Five trials: the median is the third per-call value; [min, max] covers it with 1 − 2/32.
    assert page.interval.median == pytest.approx(1389486737 / 10312)
    assert page.interval.low == pytest.approx(1388763550 / 10312)
    assert page.interval.high == pytest.approx(1391329160 / 10312)
    assert page.interval.coverage == pytest.approx(0.9375)
    assert page.interval.text == "134.7 k (134.7 k–134.9 k)"
    assert dict(page.facts)["mean cycles"] == "134.8 k"
    assert dict(page.plan)["iterations_per_trial"] == "10312"
    assert page.samples_stored is False
    assert page.evidence_url == f"/evidence/{m.evidence_id}/"
    assert page.api_url == f"/api/v1/measurements/{m.pk}/"
    assert page.api_trials_url == f"/api/v1/trials/?measurement={m.pk}"
    assert page.candidate_url == "/performance/arm_1/kem-30/"


def test_interval_from_per_batch_samples_where_stored(db):
    m = MeasurementFactory(mean_cycles=1000.0, measurements=200)
    TrialFactory(
        measurement=m, index=0, cycles=100_000, measurements=100, samples=list(range(1, 21))
    )
    TrialFactory(
        measurement=m, index=1, cycles=110_000, measurements=100, samples=list(range(21, 41))
    )
    page = measurement_page(m.pk)
    assert page.samples_stored
    assert page.interval.basis.startswith("per-batch samples")
    assert page.interval.count == 40
    assert page.interval.median == 20.5
    # Ranks (12, 27) of the 40 sorted samples 1..40 → values 13 and 28.
    assert (page.interval.low, page.interval.high) == (13.0, 28.0)
    assert page.interval.coverage == pytest.approx(binomial_coverage(40, 12, 27))
    assert page.interval.coverage > 0.95
    assert [t.samples for t in page.trials] == ["20", "20"]


def test_binomial_coverage_exact_and_approximate():
    assert binomial_coverage(5, 0, 4) == pytest.approx(30 / 32)
    assert binomial_coverage(1, 0, 0) == 0.0
    # Above 1000 values the normal approximation stays within 0.002 of the exact sum.
    exact = sum(math.comb(1001, k) for k in range(469 + 1, 531 + 1)) / 2**1001
    assert binomial_coverage(1001, 469, 531) == pytest.approx(exact, abs=0.002)


def test_measurement_without_trials(db):
    m = MeasurementFactory()
    page = measurement_page(m.pk)
    assert page.trials == [] and page.interval is None


def test_unknown_measurement_is_404(db):
    with pytest.raises(Http404):
        measurement_page(999_999)


def test_per_batch_samples_summarised_per_trial(db):
    m = MeasurementFactory(mean_cycles=1000.0, measurements=200)
    TrialFactory(measurement=m, index=0, samples=[10_000, 20_000, 30_000, 40_000, 50_000])
    page = measurement_page(m.pk)
    assert page.sample_rows == [(0, "5", "10.0 k", "20.0 k", "30.0 k", "40.0 k", "50.0 k")]
