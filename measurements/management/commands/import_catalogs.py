from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from measurements.harness_records import HarnessDataError
from measurements.progress import ProgressBar
from measurements.services.imports import catalogs_import


class Command(BaseCommand):
    help = "Import the ';'-separated CSV catalogs found in a folder."

    def add_arguments(self, parser) -> None:
        parser.add_argument("directory", type=Path)

    def handle(self, *args, directory: Path, **options):
        if not directory.is_dir():
            raise CommandError(f"{directory}: not a folder")
        try:
            summary = catalogs_import(
                directory=directory, progress=ProgressBar("catalogs", self.stderr._out)
            )
        except HarnessDataError as exc:
            raise CommandError(f"import failed, nothing was written: {exc}") from exc
        self.stdout.write(summary.describe())
