"""Keep the derived size audit in step with the curated external-size catalog.

Admin edits recompute the audit after their transaction commits. Bulk writers (the catalog
importer) recompute once themselves and silence the per-row signal with `audit_signal_paused`.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from measurements.models import ExternalSize

_paused: contextvars.ContextVar[bool] = contextvars.ContextVar("audit_signal_paused", default=False)


@contextlib.contextmanager
def audit_signal_paused() -> Iterator[None]:
    token = _paused.set(True)
    try:
        yield
    finally:
        _paused.reset(token)


@receiver(post_save, sender=ExternalSize)
@receiver(post_delete, sender=ExternalSize)
def recompute_size_audit_on_catalog_change(**kwargs) -> None:
    if _paused.get():
        return
    from measurements.services.size_audit import size_audit_recompute

    transaction.on_commit(size_audit_recompute)


def _bump_data_version(sender, **kwargs) -> None:
    if sender._meta.label in _UNVERSIONED or sender.__name__.startswith("Historical"):
        return
    from measurements.page_cache import data_version_bump

    data_version_bump()


_UNVERSIONED = {"measurements.DataVersion"}


def connect_data_version_signals() -> None:
    """Every saved or deleted row of a `measurements` model makes the cached pages stale."""
    from django.apps import apps

    for model in apps.get_app_config("measurements").get_models():
        uid = f"data-version-{model._meta.label}"
        post_save.connect(_bump_data_version, sender=model, dispatch_uid=f"{uid}-save")
        post_delete.connect(_bump_data_version, sender=model, dispatch_uid=f"{uid}-delete")
