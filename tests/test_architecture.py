"""The house plan, enforced: import contracts and function length (see docs/architecture.md)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_FUNCTION_LINES = 80

#: Files exempt from the length rule while they are being split (none today: keep it empty).
BEING_SPLIT: tuple[str, ...] = ()
#: Never checked: generated code, tests, and the virtual environment.
SKIPPED_PARTS = {"migrations", "tests", ".venv", "var", "__pycache__", "node_modules"}


def _lint_imports() -> subprocess.CompletedProcess[str]:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    return subprocess.run(
        [str(lint_imports), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_import_contracts_are_kept() -> None:
    """`lint-imports` passes: measurements never imports runner, the harness layer and the
    domain registry import no Django, selectors never import the API package."""
    result = _lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 kept, 0 broken" in result.stdout


def test_every_contract_is_configured() -> None:
    """The three contracts of the house plan are the ones import-linter checks."""
    result = _lint_imports()
    for name in (
        "measurements never imports runner KEPT",
        "the harness layer and the domain registry import no Django KEPT",
        "selectors never import the API package KEPT",
    ):
        assert name in result.stdout


def _python_files() -> list[Path]:
    files = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if SKIPPED_PARTS.intersection(relative.parts):
            continue
        files.append(path)
    return files


def _being_split(path: Path) -> bool:
    relative = path.relative_to(ROOT)
    return any(relative.match(pattern) for pattern in BEING_SPLIT)


def long_functions(source: str, *, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int, int]]:
    """(name, first line, length) of every function or method longer than `limit` lines,
    decorators excluded, docstrings and comments included."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = node.end_lineno - node.lineno + 1
            if length > limit:
                found.append((node.name, node.lineno, length))
    return found


def test_long_functions_are_found() -> None:
    """The checker itself: an 81-line function is reported with its line and length, an
    80-line one is not."""
    body = "".join(f"    x{i} = {i}\n" for i in range(79))
    source = f"def short():\n{body}\n\ndef longer():\n{body}    x = 0\n"
    assert long_functions(source) == [("longer", 83, 81)]


def test_no_function_over_80_lines() -> None:
    offenders = []
    for path in _python_files():
        if _being_split(path):
            continue
        for name, line, length in long_functions(path.read_text()):
            offenders.append(f"{path.relative_to(ROOT)}:{line} {name}() is {length} lines")
    assert offenders == [], "\n".join(offenders)


def test_allow_list_names_existing_files() -> None:
    """An allow-list entry must match a file: one that matches nothing any more is stale."""
    files = [p.relative_to(ROOT) for p in _python_files()]
    stale = [pattern for pattern in BEING_SPLIT if not any(f.match(pattern) for f in files)]
    assert stale == []


def test_category_choices_are_the_registry(db) -> None:
    """The submission category field offers exactly the registry's categories, read through a
    callable, so adding a category to `measurements.domain` needs no migration."""
    from measurements.domain import CATEGORIES
    from measurements.models import Submission, category_choices

    field = Submission._meta.get_field("category")
    assert dict(field.choices) == {key: spec.label for key, spec in CATEGORIES.items()}
    assert field.deconstruct()[3]["choices"] is category_choices


def test_models_and_migrations_agree(db) -> None:
    """No model change is waiting for a migration."""
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()
