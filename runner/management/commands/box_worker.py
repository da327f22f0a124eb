import os

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from runner.services import campaigns_recover


class Command(BaseCommand):
    help = (
        "Start this box's worker cluster (django-q2 qcluster named NGCC_CLUSTER) after "
        "recovering campaigns interrupted by a crash or a killed worker."
    )

    def handle(self, *args, **options):
        from runner.harness.sandbox_limits import remove_stale_cgroups

        cluster = settings.NGCC_CLUSTER
        if stale := remove_stale_cgroups():
            self.stdout.write(f"removed {stale} sandbox cgroups left by a killed worker")
        recovered = campaigns_recover(system_key=cluster)
        for key, steps in recovered.items():
            self.stdout.write(f"recovered campaign {key}: {steps} unfinished steps queued again")
        self.stdout.write(f"starting worker cluster {cluster!r} (pid {os.getpid()})")
        call_command("qcluster")
