"""``manage.py harness_build MANIFEST``: build every instance's library (no KAT)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from runner.harness.build import FLAG_SETS, build_instances
from runner.management.harness_options import add_manifest_arguments, manifest_and_instances


class Command(BaseCommand):
    help = "Compile each instance of a submission manifest into lib<label>.so with fixed flags."

    def add_arguments(self, parser: CommandParser) -> None:
        add_manifest_arguments(parser)
        parser.add_argument("--flags", choices=sorted(FLAG_SETS), default="guide")

    def handle(self, *args: object, **opts: object) -> None:
        manifest, instances = manifest_and_instances(opts)
        self.stdout.write(
            f"{manifest.candidate}: building {len(instances)} instance(s) with "
            f"{opts['flags']} flags, {opts['jobs']} job(s)"
        )
        results = build_instances(
            manifest,
            instances,
            flags_label=opts["flags"],
            build_root=Path(opts["build_root"]).resolve(),
            jobs=opts["jobs"],
        )
        failed = 0
        for res in results:
            if res.ok:
                self.stdout.write(
                    f"  {res.label:<28} OK   {res.library} elf_load_bytes={res.elf_load_bytes} "
                    f"warnings={len(res.warnings)}"
                )
            else:
                failed += 1
                self.stdout.write(f"  {res.label:<28} BUILDFAIL {res.error}")
        self.stdout.write(f"{len(results) - failed} built, {failed} failed")
