"""Django admin: every model browsable; the external-size catalog curated here.

Measured data (trials, measurements, profiles, evidence) is read-only in the admin: it comes from
the harness and is never edited by hand. The catalogs are editable; a change to the external-size
catalog recomputes the size audit (see `measurements.signals`).
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.http import content_disposition_header
from simple_history.admin import SimpleHistoryAdmin

from measurements.harness_records import HarnessDataError
from measurements.models import (
    Build,
    Campaign,
    DataVersion,
    EvidenceFile,
    ExternalSize,
    HashProfile,
    HashProfileCall,
    Instance,
    KatIssue,
    KATResult,
    KexBandwidth,
    Measurement,
    SecurityTarget,
    SizeAudit,
    Submission,
    SummaryNote,
    System,
    Trial,
)
from measurements.services.catalogs import (
    CatalogErrors,
    CatalogSummary,
    external_sizes_csv,
    external_sizes_upload,
)
from measurements.services.imports import max_import_file_bytes


class ReadOnlyAdmin(admin.ModelAdmin):
    """Measured data: browse, never edit by hand."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(System)
class SystemAdmin(admin.ModelAdmin):
    list_display = ("key", "arch", "hostname", "description", "allow_unfixed_host")
    search_fields = ("key", "description")


class InstanceInline(admin.TabularInline):
    model = Instance
    extra = 0
    fields = ("label", "api_instance", "variant", "security_target_bits", "position")


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("key", "category", "algorithm", "survey_verdict", "revision")
    list_filter = ("category", "survey_verdict")
    search_fields = ("key", "algorithm")
    inlines = [InstanceInline]


@admin.register(Instance)
class InstanceAdmin(admin.ModelAdmin):
    list_display = ("label", "submission", "variant", "security_target_bits")
    list_filter = ("submission__category", "variant")
    search_fields = ("label", "submission__key")
    list_select_related = ("submission",)


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ("key", "system", "status", "source", "started_utc", "ended_utc")
    list_filter = ("system", "status", "source")


@admin.register(Build)
class BuildAdmin(ReadOnlyAdmin):
    list_display = ("instance", "campaign", "flags", "kat_status", "elf_load_bytes")
    list_filter = ("campaign__system", "flags", "kat_status")
    search_fields = ("instance__label", "instance__submission__key")
    list_select_related = ("instance__submission", "campaign")
    raw_id_fields = ("kat_log",)


@admin.register(KATResult)
class KATResultAdmin(ReadOnlyAdmin):
    list_display = ("build", "kind", "status")
    list_filter = ("kind", "status")
    list_select_related = ("build__instance__submission", "build__campaign")


class TrialInline(admin.TabularInline):
    model = Trial
    extra = 0
    fields = ("index", "process_index", "measurements", "seconds", "cycles", "counter", "cpu")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Measurement)
class MeasurementAdmin(ReadOnlyAdmin):
    list_display = ("instance", "operation", "input_bytes", "campaign", "status", "mean_cycles")
    list_filter = ("campaign__system", "operation", "status", "planner")
    search_fields = ("instance__label", "instance__submission__key")
    list_select_related = ("instance__submission", "campaign")
    inlines = [TrialInline]
    raw_id_fields = ("evidence",)


@admin.register(Trial)
class TrialAdmin(ReadOnlyAdmin):
    list_display = ("measurement", "index", "measurements", "seconds", "cycles", "counter")
    list_select_related = ("measurement__instance__submission",)


class HashProfileCallInline(admin.TabularInline):
    model = HashProfileCall
    extra = 0
    readonly_fields = ("fn", "in_bits", "out_bits", "calls", "ticks")
    fields = readonly_fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(HashProfile)
class HashProfileAdmin(ReadOnlyAdmin):
    list_display = ("instance", "operation", "campaign", "hash_share", "drng_share")
    list_filter = ("campaign__system", "operation")
    list_select_related = ("instance__submission", "campaign")
    inlines = [HashProfileCallInline]
    raw_id_fields = ("evidence",)


@admin.register(HashProfileCall)
class HashProfileCallAdmin(ReadOnlyAdmin):
    list_display = ("profile", "fn", "in_bits", "out_bits", "calls", "ticks")


@admin.register(EvidenceFile)
class EvidenceFileAdmin(ReadOnlyAdmin):
    list_display = ("relative_path", "campaign", "kind", "size", "sha256")
    list_filter = ("kind", "campaign")
    search_fields = ("relative_path",)
    exclude = ("content",)


class CatalogUploadForm(forms.Form):
    file = forms.FileField(help_text="external_sizes.csv: ID;Instance;PublicKeyBytes;…;Basis")
    replace = forms.BooleanField(
        required=False,
        help_text="Also remove the rows the file does not list (otherwise they are kept).",
    )


@admin.register(ExternalSize)
class ExternalSizeAdmin(SimpleHistoryAdmin):
    """The curated catalog: editable (every change kept in its history, revertible), with CSV
    import (merge by key, all rows valid or nothing written) and export."""

    list_display = (
        "candidate",
        "instance_label",
        "public_key_bytes",
        "ciphertext_bytes",
        "signature_bytes",
        "basis",
    )
    list_filter = ("basis",)
    search_fields = ("candidate", "instance_label")
    change_list_template = "admin/measurements/externalsize/change_list.html"

    def get_urls(self):
        own = [
            path(
                "import-csv/",
                self.admin_site.admin_view(self.import_csv),
                name="measurements_externalsize_import_csv",
            ),
            path(
                "export-csv/",
                self.admin_site.admin_view(self.export_csv),
                name="measurements_externalsize_export_csv",
            ),
        ]
        return own + super().get_urls()

    def export_csv(self, request: HttpRequest) -> HttpResponse:
        response = HttpResponse(external_sizes_csv(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = content_disposition_header(True, "external_sizes.csv")
        return response

    def _import_upload(self, form: CatalogUploadForm) -> CatalogSummary | None:
        """Import the uploaded CSV; on failure add every row-numbered error to the form."""
        upload = form.cleaned_data["file"]
        limit = max_import_file_bytes()
        if upload.size > limit:
            form.add_error("file", f"{upload.name}: {upload.size} bytes exceeds the limit {limit}")
            return None
        try:
            text = upload.read().decode("utf-8")
            return external_sizes_upload(
                name=upload.name, text=text, replace=form.cleaned_data["replace"]
            )
        except UnicodeDecodeError:
            form.add_error("file", f"{upload.name}: not UTF-8 text")
        except CatalogErrors as exc:
            for error in exc.errors:
                form.add_error("file", f"nothing was imported: {error}")
        except HarnessDataError as exc:
            form.add_error("file", f"nothing was imported: {exc}")
        return None

    def import_csv(self, request: HttpRequest) -> HttpResponse:
        if not self.has_change_permission(request):
            return HttpResponse(status=403)
        form = CatalogUploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            summary = self._import_upload(form)
            if summary is not None:
                messages.success(request, summary.describe())
                return redirect("admin:measurements_externalsize_changelist")
        context = {
            **self.admin_site.each_context(request),
            "form": form,
            "opts": self.model._meta,
            "title": "Import the external-size catalog from CSV",
        }
        return render(request, "admin/measurements/externalsize/import_csv.html", context)


@admin.register(KatIssue)
class KatIssueAdmin(SimpleHistoryAdmin):
    list_display = ("candidate", "label_regex", "action")
    list_filter = ("action",)


@admin.register(KexBandwidth)
class KexBandwidthAdmin(SimpleHistoryAdmin):
    list_display = (
        "candidate",
        "instance_label",
        "pk_a_bytes",
        "pk_b_bytes",
        "protocol_message_bytes",
    )


@admin.register(SecurityTarget)
class SecurityTargetAdmin(SimpleHistoryAdmin):
    list_display = ("candidate", "instance_label", "target_bits")
    search_fields = ("candidate", "instance_label")


@admin.register(SummaryNote)
class SummaryNoteAdmin(SimpleHistoryAdmin):
    list_display = ("candidate", "label_regex", "note")


@admin.register(SizeAudit)
class SizeAuditAdmin(ReadOnlyAdmin):
    list_display = ("instance", "field", "api_bytes", "catalog_bytes", "basis", "agrees")
    list_filter = ("field", "agrees", "basis")
    list_select_related = ("instance__submission",)


@admin.register(DataVersion)
class DataVersionAdmin(ReadOnlyAdmin):
    """The counter that keys the page cache (bumped by every data change)."""

    list_display = ("number",)
