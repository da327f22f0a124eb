from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from measurements.harness_records import HarnessDataError
from measurements.progress import ProgressBar
from measurements.services.evidence import EvidenceConflict
from measurements.services.imports import harness_dataset_import
from measurements.services.recording import RecordConflict


class Command(BaseCommand):
    help = "Import a harness dataset folder (campaign.json, build.json, records/, profile/, kat/)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("directory", type=Path)
        parser.add_argument("--system", required=True, help="system id, e.g. arm_1")
        parser.add_argument("--quiet-progress", action="store_true")

    def handle(self, *args, directory: Path, system: str, quiet_progress: bool, **options):
        if not directory.is_dir():
            raise CommandError(f"{directory}: not a folder")
        progress = None if quiet_progress else ProgressBar("import", self.stderr._out)
        try:
            summary = harness_dataset_import(
                directory=directory, system_key=system, progress=progress
            )
        except (HarnessDataError, EvidenceConflict, RecordConflict) as exc:
            raise CommandError(f"import failed, nothing was written: {exc}") from exc
        self.stdout.write(summary.describe())
