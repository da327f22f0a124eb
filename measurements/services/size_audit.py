"""The external size audit: API sizes (from timing records) against the curated catalog."""

from __future__ import annotations

from django.db import transaction

from measurements.models import ExternalSize, Instance, Measurement, SizeAudit

# (audit field, key in a record's `sizes`, catalog attribute)
AUDITED_FIELDS = (
    ("public_key", "pk_bytes", "public_key_bytes"),
    ("ciphertext", "ct_bytes", "ciphertext_bytes"),
    ("signature", "signature_bytes", "signature_bytes"),
)


@transaction.atomic
def size_audit_recompute() -> int:
    """Rebuild every SizeAudit row; returns the number of rows now stored."""
    catalog = {(e.candidate, e.instance_label): e for e in ExternalSize.objects.all()}
    api_sizes: dict[int, dict] = {}
    for instance_id, sizes in (
        Measurement.objects.exclude(sizes={})
        .order_by("started_utc", "id")
        .values_list("instance_id", "sizes")
    ):
        api_sizes[instance_id] = sizes  # latest measurement wins
    wanted: dict[tuple[int, str], dict] = {}
    for instance in Instance.objects.select_related("submission"):
        entry = catalog.get((instance.submission.key, instance.label))
        sizes = api_sizes.get(instance.id, {})
        for field, api_key, catalog_attr in AUDITED_FIELDS:
            api_value = sizes.get(api_key) or None
            catalog_value = getattr(entry, catalog_attr) if entry else None
            if api_value is None and catalog_value is None:
                continue
            wanted[(instance.id, field)] = {
                "api_bytes": api_value,
                "catalog_bytes": catalog_value,
                "basis": entry.basis if entry else "",
                "agrees": api_value is not None and api_value == catalog_value,
            }
    existing = {(a.instance_id, a.field): a for a in SizeAudit.objects.all()}
    to_create, to_update = [], []
    for key, values in wanted.items():
        audit = existing.get(key)
        if audit is None:
            to_create.append(SizeAudit(instance_id=key[0], field=key[1], **values))
        elif any(getattr(audit, k) != v for k, v in values.items()):
            for k, v in values.items():
                setattr(audit, k, v)
            to_update.append(audit)
    SizeAudit.objects.bulk_create(to_create)
    SizeAudit.objects.bulk_update(to_update, ["api_bytes", "catalog_bytes", "basis", "agrees"])
    SizeAudit.objects.filter(pk__in=[a.pk for k, a in existing.items() if k not in wanted]).delete()
    return len(wanted)
