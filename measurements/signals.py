"""Keep the derived size audit in step with the curated external-size catalog."""

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from measurements.models import ExternalSize


@receiver(post_save, sender=ExternalSize)
@receiver(post_delete, sender=ExternalSize)
def recompute_size_audit_on_catalog_change(**kwargs) -> None:
    from measurements.services.size_audit import size_audit_recompute

    transaction.on_commit(size_audit_recompute)
