"""Submission metadata from the published pages, read in place."""

from measurements.models import Submission
from measurements.services.published_pages import published_metadata_import


def test_names_links_and_verdicts(arm1, reference_pages_dir):
    kem38 = Submission.objects.get(key="kem-38")
    assert kem38.algorithm == "UVW Key Encapsulation Mechanism"
    assert kem38.niccs_url.endswith("content_2101560881697083392.html")
    assert kem38.spec_url.endswith("kem-38/kem-38-spec.pdf")
    kem30 = Submission.objects.get(key="kem-30")
    assert (kem30.survey_verdict, kem30.survey_note) == ("ICCS-only", "default BIT_USE_SHAKE=0")
    assert Submission.objects.get(key="kem-17").algorithm == (
        "Hybrid Equivalent Punctured and Quasi-Cyclic"
    )
    assert not published_metadata_import(directory=reference_pages_dir).changed
