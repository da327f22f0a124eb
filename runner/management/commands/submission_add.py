from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from runner.services import submission_add


class Command(BaseCommand):
    help = "Register a candidate and its instances from its submission manifest (TOML)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("manifest", nargs="+", type=Path)

    def handle(self, *args, manifest: list[Path], **options):
        from runner.harness.manifest import ManifestError

        for path in manifest:
            try:
                submission, outcome = submission_add(manifest_path=path)
            except (ManifestError, OSError) as exc:
                raise CommandError(f"{path}: {exc}") from exc
            count = submission.instances.count()
            self.stdout.write(
                f"{submission.key} ({submission.algorithm}): {outcome}, {count} instances"
            )
