"""``manage.py harness_kat MANIFEST``: build, run the KATs and the functional check.

Works without a database.  With ``--campaign KEY`` the builds and KAT results
are also recorded through ``measurements.services.recording`` (the campaign
must exist).
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from runner.harness.kat import InstanceCheck, check_instance
from runner.harness.manifest import Manifest
from runner.management.harness_options import add_manifest_arguments, manifest_and_instances


def record_check(*, campaign_key: str, manifest: Manifest, check: InstanceCheck) -> None:
    """Store the final build and its KAT/functional results for one instance."""
    from measurements.models import Campaign
    from measurements.services.recording import instance_get_or_create
    from runner.store import instance_check_store

    campaign = Campaign.objects.get(key=campaign_key)
    instance, _ = instance_get_or_create(
        candidate=manifest.candidate,
        label=check.label,
        api_instance=check.final.instance,
        variant=manifest.variant,
    )
    instance_check_store(campaign=campaign, instance=instance, check=check)


class Command(BaseCommand):
    help = "Build each instance (guide, then harness-default on failure) and check its KAT."

    def add_arguments(self, parser: CommandParser) -> None:
        add_manifest_arguments(parser)
        parser.add_argument("--timeout", type=float, help="override each KAT's time limit (s)")
        parser.add_argument(
            "--no-fallback", action="store_true", help="do not retry with harness-default flags"
        )
        parser.add_argument("--campaign", help="record results in this campaign (by key)")

    def handle(self, *args: object, **opts: object) -> None:
        manifest, instances = manifest_and_instances(opts)
        self.stdout.write(f"{manifest.candidate}: {len(instances)} instance(s)")
        counts: dict[str, int] = {}
        for n, inst in enumerate(instances, 1):
            self.stdout.write(f"[{n}/{len(instances)}] {inst.label} ...")
            check = check_instance(
                manifest,
                inst,
                build_root=Path(opts["build_root"]).resolve(),
                jobs=opts["jobs"],
                fallback=not opts["no_fallback"],
                timeout=opts["timeout"],
            )
            for kat in check.kats:
                self.stdout.write(
                    f"    {kat.flags_label:<16} {kat.status.value:<10} {kat.detail}".rstrip()
                )
            final = check.final
            self.stdout.write(f"  => {final.status.value}  log {final.log_path}")
            counts[final.status.value] = counts.get(final.status.value, 0) + 1
            if opts["campaign"]:
                record_check(campaign_key=opts["campaign"], manifest=manifest, check=check)
                self.stdout.write(f"     recorded in campaign {opts['campaign']}")
        self.stdout.write(", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
