from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from measurements.services.published_campaigns import (
    PublishedPageError,
    published_campaigns_import,
)


class Command(BaseCommand):
    help = (
        "Import the figures of published candidate pages (<id>/perf_<system>.md) as the system's "
        'campaign "<system>-published-pages" (provenance: published page, no raw trials).'
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("directory", type=Path)
        parser.add_argument("--system", required=True)

    def handle(self, *args, directory: Path, system: str, **options):
        try:
            summary = published_campaigns_import(directory=directory, system_key=system)
        except PublishedPageError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(summary.describe())
