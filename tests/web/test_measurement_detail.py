"""The measurement detail page over HTTP, and the links to it from every figure."""

from __future__ import annotations

import csv
import io
import re

from measurements.models import Measurement


def _m(arm1, label: str, op: str) -> Measurement:
    return Measurement.objects.get(campaign=arm1, instance__label=label, operation=op)


def test_detail_page_shows_trials_chart_and_links(client, arm1, django_assert_max_num_queries):
    m = _m(arm1, "POLARLAC-128", "keygen")
    with django_assert_max_num_queries(4):
        response = client.get(f"/measurements/{m.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    trials = html.split('id="table-trials"', 1)[1].split("</table>", 1)[0]
    assert trials.count("<tr>") == 6  # header + five trials
    assert '<td class="num">1391329160</td>' in trials
    assert "<svg" in html and "cycles per call (linear scale)" in html
    assert '<td class="num" id="median-interval">134.7 k (134.7 k–134.9 k)</td>' in html
    assert f'href="/evidence/{m.evidence_id}/"' in html
    assert f'href="/api/v1/trials/?measurement={m.pk}"' in html
    assert 'href="/campaigns/' in html


def test_detail_csv_lists_every_trial(client, arm1):
    m = _m(arm1, "POLARLAC-128", "keygen")
    response = client.get(f"/measurements/{m.pk}/?format=csv")
    assert (
        f'filename="measurement-{m.pk}-kem-30-POLARLAC-128-keygen-trials.csv"'
        in (response["Content-Disposition"])
    )
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [int(r["cycles"]) for r in rows] == list(m.trials.values_list("cycles", flat=True))
    assert rows[0]["measurements"] == "10312"


def test_candidate_page_cycles_link_to_their_measurement(client, arm1):
    html = client.get("/performance/arm_1/kem-30/").content.decode()
    perf = html.split('id="table-performance"', 1)[1].split("</table>", 1)[0]
    links = re.findall(r'<a href="/measurements/(\d+)/">([^<]+)</a>', perf)
    ids = set(
        Measurement.objects.filter(campaign=arm1, instance__submission__key="kem-30").values_list(
            "pk", flat=True
        )
    )
    assert {int(i) for i, _ in links} == ids
    m = _m(arm1, "POLARLAC-128", "keygen")
    assert (str(m.pk), "134.8 k") in links


def test_summary_figures_link_to_their_measurement(client, arm1):
    html = client.get("/performance/arm_1/").content.decode()
    m = _m(arm1, "POLARLAC-128", "keygen")
    assert re.search(rf'<a href="/measurements/{m.pk}/">134\.8 k[^<]*</a>', html)
    linked = {int(i) for i in re.findall(r'href="/measurements/(\d+)/"', html)}
    assert linked == set(Measurement.objects.filter(campaign=arm1).values_list("pk", flat=True))


def test_unknown_measurement_is_404(client, db):
    assert client.get("/measurements/999999/").status_code == 404


def test_detail_page_shows_per_batch_samples_where_stored(client, db):
    from tests.factories import MeasurementFactory, TrialFactory

    m = MeasurementFactory(mean_cycles=1000.0, measurements=200)
    TrialFactory(measurement=m, index=0, samples=[10_000, 20_000, 30_000, 40_000, 50_000])
    html = client.get(f"/measurements/{m.pk}/").content.decode()
    samples = html.split('id="table-samples"', 1)[1].split("</table>", 1)[0]
    assert '<td class="num">5</td><td class="num">10.0 k</td>' in samples
    assert "No per-batch samples" not in html
