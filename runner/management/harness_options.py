"""Options shared by the harness commands (`harness_build`, `harness_kat`): which manifest, which
root, where to build, how many jobs, which instances."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from runner.harness.manifest import Instance, Manifest, ManifestError, load_manifest


def add_manifest_arguments(parser: CommandParser) -> None:
    parser.add_argument("manifest", type=Path)
    parser.add_argument("--root", type=Path, help="submission root (default: from manifest)")
    parser.add_argument(
        "--build-root",
        type=Path,
        default=Path("var/build"),
        help="where libraries are built (default: var/build under the current directory)",
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--instance", action="append", help="only these labels")


def manifest_and_instances(options: dict[str, Any]) -> tuple[Manifest, list[Instance]]:
    """The manifest (a rejected one is a `CommandError` naming the field) and the instances the
    `--instance` options select (every instance without them)."""
    try:
        manifest = load_manifest(options["manifest"], root=options["root"])
    except ManifestError as exc:
        raise CommandError(f"manifest rejected: {exc}") from exc
    labels = options["instance"]
    return manifest, [i for i in manifest.instances if not labels or i.label in labels]
