from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from measurements.services.published_pages import published_metadata_import


class Command(BaseCommand):
    help = (
        "Take algorithm names, specification/NICCS links and survey verdicts from previously "
        "published pages (a folder with performance/summary_*.md and <id>/perf_*.md)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("directory", type=Path)

    def handle(self, *args, directory: Path, **options):
        if not (directory / "performance").is_dir():
            raise CommandError(f"{directory}: no performance/ folder of published pages")
        self.stdout.write(published_metadata_import(directory=directory).describe())
