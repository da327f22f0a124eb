from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from measurements.harness_records import HarnessDataError
from measurements.progress import ProgressBar
from measurements.services.catalogs import catalogs_import


class Command(BaseCommand):
    help = (
        "Merge the ';'-separated CSV catalogs found in a folder into the database: rows are "
        "added or changed by key; rows the files lack are kept unless --replace is given."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("directory", type=Path)
        parser.add_argument(
            "--replace",
            action="store_true",
            help="also remove the rows of each catalog file that the file does not list",
        )

    def handle(self, *args, directory: Path, replace: bool, **options):
        if not directory.is_dir():
            raise CommandError(f"{directory}: not a folder")
        try:
            summary = catalogs_import(
                directory=directory,
                replace=replace,
                progress=ProgressBar("catalogs", self.stderr._out),
            )
        except HarnessDataError as exc:
            raise CommandError(f"import failed, nothing was written: {exc}") from exc
        self.stdout.write(summary.describe())
