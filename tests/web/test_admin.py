"""Admin: every model is registered; the external-size catalog is curated with CSV in and out."""

import pytest
from django.apps import apps
from django.contrib import admin

from measurements.models import ExternalSize, SizeAudit


@pytest.fixture
def staff_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("curator", "c@example.org", "pw")
    client.force_login(user)
    return client


def test_every_model_is_registered():
    missing = [
        m.__name__
        for m in apps.get_app_config("measurements").get_models()
        # Catalog histories are browsed from each catalog row's "History" page.
        if m not in admin.site._registry and not m.__name__.startswith("Historical")
    ]
    assert missing == []


def test_admin_changelists_render(staff_client, arm1):
    for name in ("measurement", "build", "externalsize", "sizeaudit", "evidencefile", "trial"):
        response = staff_client.get(f"/admin/measurements/{name}/")
        assert response.status_code == 200, name


def test_catalog_edit_validates_basis_and_non_negative(staff_client, empty_db):
    response = staff_client.post(
        "/admin/measurements/externalsize/add/",
        {
            "candidate": "kem-90",
            "instance_label": "MINI-1",
            "public_key_bytes": "-1",
            "ciphertext_bytes": "48",
            "basis": "approximate",
        },
    )
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert "public_key_bytes" in errors and "basis" in errors
    assert ExternalSize.objects.count() == 0


def test_catalog_csv_import_export_and_audit(
    staff_client, empty_db, django_capture_on_commit_callbacks
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from measurements.services.imports import harness_dataset_import
    from tests.services.test_imports import MINI

    harness_dataset_import(directory=MINI, system_key="fix_1")
    csv = (
        "ID;Instance;PublicKeyBytes;CiphertextBytes;SignatureBytes;Basis\n"
        "kem-90;MINI-1;32;50;;encoded\n"
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            "/admin/measurements/externalsize/import-csv/",
            {"file": SimpleUploadedFile("external_sizes.csv", csv.encode())},
        )
    assert response.status_code == 302
    audit = SizeAudit.objects.get(instance__label="MINI-1", field="ciphertext")
    assert (audit.api_bytes, audit.catalog_bytes, audit.agrees) == (48, 50, False)
    export = staff_client.get("/admin/measurements/externalsize/export-csv/")
    assert export.content.decode() == csv

    entry = ExternalSize.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        staff_client.post(
            f"/admin/measurements/externalsize/{entry.pk}/change/",
            {
                "candidate": "kem-90",
                "instance_label": "MINI-1",
                "public_key_bytes": "32",
                "ciphertext_bytes": "48",
                "basis": "encoded",
            },
        )
    assert SizeAudit.objects.get(instance__label="MINI-1", field="ciphertext").agrees


def test_bad_catalog_upload_names_line_and_changes_nothing(staff_client, empty_db):
    from django.core.files.uploadedfile import SimpleUploadedFile

    csv = (
        "ID;Instance;PublicKeyBytes;CiphertextBytes;SignatureBytes;Basis\n"
        "kem-90;A;1;2;;encoded\nkem-90;B;x;2;;encoded\n"
    )
    response = staff_client.post(
        "/admin/measurements/externalsize/import-csv/",
        {"file": SimpleUploadedFile("external_sizes.csv", csv.encode())},
    )
    assert response.status_code == 200
    assert "external_sizes.csv:3" in response.content.decode()
    assert "PublicKeyBytes" in response.content.decode()
    assert ExternalSize.objects.count() == 0


def test_summary_note_pattern_that_does_not_compile_is_shown_on_the_form(staff_client, empty_db):
    from measurements.models import SummaryNote

    response = staff_client.post(
        "/admin/measurements/summarynote/add/",
        {"candidate": "kem-90", "label_regex": "(", "note": "n", "position": "0"},
    )
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors["label_regex"] == ["'(': not a valid pattern: missing ): ("]
    assert SummaryNote.objects.count() == 0


def test_catastrophic_summary_note_pattern_does_not_hang_the_summary(staff_client, arm1):
    from measurements.models import SummaryNote

    response = staff_client.post(
        "/admin/measurements/summarynote/add/",
        {"candidate": "kem-29", "label_regex": "(.*.*.*.*.*.*)*X", "note": "n", "position": "9"},
    )
    assert response.status_code == 302
    assert SummaryNote.objects.filter(label_regex="(.*.*.*.*.*.*)*X").exists()
    assert staff_client.get("/performance/arm_1/").status_code == 200


def test_kat_issue_pattern_is_validated_too(staff_client, empty_db):
    response = staff_client.post(
        "/admin/measurements/katissue/add/",
        {"candidate": "kem-90", "label_regex": "a(?=b)", "action": "measure", "cause": "c"},
    )
    errors = response.context["adminform"].form.errors
    assert errors["label_regex"] == ["'a(?=b)': not a valid pattern: invalid perl operator: (?="]


def test_catalog_upload_lists_every_bad_row_instead_of_a_500(staff_client, empty_db):
    from django.core.files.uploadedfile import SimpleUploadedFile

    csv = (
        "ID;Instance;PublicKeyBytes;CiphertextBytes;SignatureBytes;Basis\n"
        "kem-90;A;1;2;;encoded\n"
        "kem-90;B;99999999999999999999;2;;encoded\n"
        "kem-90;A;1;2;;encoded\n"
    )
    response = staff_client.post(
        "/admin/measurements/externalsize/import-csv/",
        {"file": SimpleUploadedFile("external_sizes.csv", csv.encode())},
    )
    assert response.status_code == 200
    errors = response.context["form"].errors["file"]
    assert errors == [
        "nothing was imported: external_sizes.csv:3: field 'PublicKeyBytes': "
        "99999999999999999999 is above the limit 4294967296",
        "nothing was imported: external_sizes.csv:4: field '<key>': kem-90/A already given "
        "on line 2",
    ]
    assert ExternalSize.objects.count() == 0


def test_admin_edit_is_kept_in_history_with_its_author(staff_client, empty_db):
    entry = ExternalSize.objects.create(
        candidate="kem-90", instance_label="MINI-1", public_key_bytes=32, basis="encoded"
    )
    staff_client.post(
        f"/admin/measurements/externalsize/{entry.pk}/change/",
        {
            "candidate": "kem-90",
            "instance_label": "MINI-1",
            "public_key_bytes": "64",
            "basis": "encoded",
        },
    )
    latest, first = entry.history.order_by("-history_id")[:2]
    assert (first.public_key_bytes, latest.public_key_bytes) == (32, 64)
    assert latest.history_user.username == "curator"
    page = staff_client.get(f"/admin/measurements/externalsize/{entry.pk}/history/")
    assert page.status_code == 200 and "curator" in page.content.decode()


def test_catalog_edit_refuses_a_newline_and_an_oversized_number(staff_client, empty_db):
    response = staff_client.post(
        "/admin/measurements/externalsize/add/",
        {
            "candidate": "kem-90",
            "instance_label": "MINI\n1",
            "public_key_bytes": "99999999999",
            "basis": "encoded",
        },
    )
    errors = response.context["adminform"].form.errors
    assert errors["instance_label"] == ["contains the control character U+000A"]
    assert errors["public_key_bytes"] == ["Ensure this value is less than or equal to 4294967296."]
    assert ExternalSize.objects.count() == 0


def test_catastrophic_kat_issue_pattern_does_not_hang_the_candidate_page(staff_client, arm1):
    from measurements.models import KatIssue

    KatIssue.objects.create(
        candidate="kem-29", label_regex="(.*.*.*.*.*.*)*X", action="measure", cause="c"
    )
    # With Python's backtracking `re` this request would not finish; RE2 answers at once.
    assert staff_client.get("/performance/arm_1/kem-29/").status_code == 200
    assert staff_client.get("/kat/").status_code == 200
