"""``manage.py harness_build MANIFEST``: build every instance's library (no KAT)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from runner.harness.build import FLAG_SETS, build_instances
from runner.harness.manifest import ManifestError, load_manifest


class Command(BaseCommand):
    help = "Compile each instance of a submission manifest into lib<label>.so with fixed flags."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("manifest", type=Path)
        parser.add_argument("--root", type=Path, help="submission root (default: from manifest)")
        parser.add_argument("--flags", choices=sorted(FLAG_SETS), default="guide")
        parser.add_argument(
            "--build-root",
            type=Path,
            default=Path("var/build"),
            help="where libraries are built (default: var/build under the current directory)",
        )
        parser.add_argument("--jobs", type=int, default=2)
        parser.add_argument("--instance", action="append", help="only these labels")

    def handle(self, *args: object, **opts: object) -> None:
        try:
            manifest = load_manifest(opts["manifest"], root=opts["root"])
        except ManifestError as exc:
            raise CommandError(f"manifest rejected: {exc}") from exc
        instances = [
            i for i in manifest.instances if not opts["instance"] or i.label in opts["instance"]
        ]
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
