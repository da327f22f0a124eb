from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.http import Http404

from measurements.models import System
from measurements.services.export_pages import export_pages, submissions_with_data


class Command(BaseCommand):
    help = "Write <out>/<id>/perf_<system>.md for every submission with data on a system."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--system", required=True, help="system id, e.g. arm_1")
        parser.add_argument("--out", required=True, type=Path, help="output folder")
        parser.add_argument(
            "--submission", action="append", help="only this submission (repeatable)"
        )

    def handle(self, *args, system: str, out: Path, submission: list[str] | None, **options):
        if not System.objects.filter(key=system).exists():
            raise CommandError(f"unknown system {system!r}")
        keys = submission or submissions_with_data(system)
        if not keys:
            raise CommandError(f"no measurements on system {system!r}: nothing to export")

        def progress(done: int, total: int, path: str) -> None:
            self.stdout.write(f"[{done}/{total}] {path}")

        try:
            written = export_pages(
                system_key=system, out_dir=out, submissions=keys, progress=progress
            )
        except Http404 as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"wrote {len(written)} pages for system {system} under {out}")
