"""The curated `;`-separated CSV catalogs: import (merge by key), admin upload, export.

An import merges by key: rows of the file are added or changed, rows the file lacks are only
reported ("would remove") unless `replace=True` (``import_catalogs --replace``) asks for them to
go. Every row is validated (sizes in range, one row per key, no control characters, label
patterns RE2 compiles) and all problems are reported with their line numbers; nothing is written
unless the whole file is valid. Exports quote with the csv module and neutralise cells a
spreadsheet would run as a formula; an export imports back to exactly the same rows.
"""

from __future__ import annotations

import collections
import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import models, transaction

from measurements.confined_files import DEFAULT_MAX_FILE_BYTES, read_confined
from measurements.harness_records import HarnessDataError
from measurements.label_patterns import label_pattern_problem
from measurements.models import (
    MAX_CATALOG_SIZE_BYTES,
    ExternalSize,
    Instance,
    KatIssue,
    KexBandwidth,
    SecurityTarget,
    SizeBasis,
    SummaryNote,
    System,
)
from measurements.page_cache import data_version_bump
from measurements.services.size_audit import size_audit_recompute
from measurements.signals import audit_signal_paused

ProgressCallback = Callable[[int, int, str], None]
#: Largest byte size a catalog may give (4 GiB: far above any key, ciphertext or signature).
MAX_SIZE_BYTES = MAX_CATALOG_SIZE_BYTES
#: Cells a spreadsheet would evaluate; exported with a leading apostrophe (undone on import).
FORMULA_LEADS = ("=", "+", "-", "@")
EXTERNAL_SIZES_COLUMNS = (
    "ID",
    "Instance",
    "PublicKeyBytes",
    "CiphertextBytes",
    "SignatureBytes",
    "Basis",
)
EXTERNAL_SIZES_HEADER = ";".join(EXTERNAL_SIZES_COLUMNS)


class CatalogErrors(HarnessDataError):
    """Every problem of a catalog file, each naming its line and column."""

    def __init__(self, errors: list[HarnessDataError]) -> None:
        self.errors = errors
        first = errors[0]
        super().__init__(first.path, first.field, first.message)
        self.args = ("\n".join(str(e) for e in errors),)

    def __str__(self) -> str:
        return self.args[0]


@dataclass
class CatalogChange:
    """What an import did (or would do) to one catalog."""

    name: str
    added: int = 0
    changed: int = 0
    stale: int = 0
    removed: bool = False

    def describe(self) -> str:
        fate = "removed" if self.removed else "would be removed (use --replace to remove them)"
        parts = [f"{self.added} added", f"{self.changed} changed"]
        if self.stale:
            parts.append(f"{self.stale} not in the file {fate}")
        return f"{self.name}: " + ", ".join(parts)


@dataclass
class CatalogSummary:
    files_seen: int = 0
    counts: collections.Counter = field(default_factory=collections.Counter)
    changes: list[CatalogChange] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(self.counts.values())

    @property
    def files_unchanged(self) -> int:
        return 0 if self.changed else self.files_seen

    def describe(self) -> str:
        lines = [c.describe() for c in self.changes]
        if not self.changed:
            lines.append(f"no changes: all {self.files_seen} catalogs were already imported")
        return "\n".join(lines)


# --- Reading and validating rows --------------------------------------------------------------


def _control_character(text: str) -> str | None:
    for char in text:
        if ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0:
            return f"U+{ord(char):04X}"
    return None


def _unneutralised(value: str) -> str:
    """Undo the export's formula guard: ``'=x`` → ``=x`` (and ``''x`` → ``'x``)."""
    if len(value) > 1 and value[0] == "'" and value[1] in (*FORMULA_LEADS, "'"):
        return value[1:]
    return value


def _split(path: Path, n: int, line: str, width: int | None) -> list[str]:
    bad = _control_character(line)
    if bad:
        raise HarnessDataError(f"{path}:{n}", "<row>", f"contains the control character {bad}")
    values = next(csv.reader([line], delimiter=";"))
    # The last column is free text and may itself contain ';' (e.g. a KAT issue's cause).
    if width is not None and len(values) > width:
        values = [*values[: width - 1], ";".join(values[width - 1 :])]
    return [_unneutralised(v.strip()) for v in values]


def _csv_rows(path: Path, text: str) -> list[tuple[int, dict[str, str]]]:
    """(line number, row) of a `;`-separated catalog; `#` lines are comments."""
    lines = enumerate(text.splitlines(), start=1)
    data = [(n, line) for n, line in lines if line.strip() and not line.lstrip().startswith("#")]
    if not data:
        return []
    columns = _split(path, data[0][0], data[0][1], None)
    rows = []
    errors = []
    for n, line in data[1:]:
        try:
            values = _split(path, n, line, len(columns))
        except HarnessDataError as exc:
            errors.append(exc)
            continue
        if len(values) != len(columns):
            errors.append(
                HarnessDataError(
                    f"{path}:{n}", "<row>", f"expected {len(columns)} fields, got {len(values)}"
                )
            )
            continue
        rows.append((n, dict(zip(columns, values, strict=True))))
    if errors:
        raise CatalogErrors(errors)
    return rows


def _require(path: Path, n: int, row: dict[str, str], column: str) -> str:
    if column not in row:
        raise HarnessDataError(f"{path}:{n}", column, "column missing from the header")
    if not row[column]:
        raise HarnessDataError(f"{path}:{n}", column, "must not be empty")
    return row[column]


def _label_pattern(path: Path, n: int, row: dict[str, str]) -> str:
    """The ``Label`` column: a pattern RE2 compiles (see measurements.label_patterns)."""
    pattern = _require(path, n, row, "Label")
    problem = label_pattern_problem(pattern)
    if problem:
        raise HarnessDataError(f"{path}:{n}", "Label", f"{pattern!r}: {problem}")
    return pattern


def _optional_int(
    path: Path, n: int, row: dict[str, str], column: str, maximum: int = MAX_SIZE_BYTES
) -> int | None:
    value = row.get(column, "")
    if value == "":
        return None
    if not value.lstrip("-").isdigit() or len(value) > 20:
        raise HarnessDataError(f"{path}:{n}", column, f"not an integer: {value!r}")
    number = int(value)
    if number < 0:
        raise HarnessDataError(f"{path}:{n}", column, f"must not be negative: {number}")
    if number > maximum:
        raise HarnessDataError(f"{path}:{n}", column, f"{number} is above the limit {maximum}")
    return number


def _validated_rows(
    path: Path, text: str, build: Callable[[int, dict[str, str]], dict], keys: tuple[str, ...]
) -> list[dict]:
    """Every row built by `build`, all errors collected (with line numbers), keys unique."""
    rows: list[dict] = []
    errors: list[HarnessDataError] = []
    first_line: dict[tuple, int] = {}
    for n, raw in _csv_rows(path, text):
        try:
            values = build(n, raw)
        except HarnessDataError as exc:
            errors.append(exc)
            continue
        key = tuple(values[k] for k in keys)
        if key in first_line:
            errors.append(
                HarnessDataError(
                    f"{path}:{n}",
                    "<key>",
                    f"{'/'.join(map(str, key))} already given on line {first_line[key]}",
                )
            )
            continue
        first_line[key] = n
        rows.append(values)
    if errors:
        raise CatalogErrors(errors)
    return rows


def _external_size(path: Path) -> Callable[[int, dict[str, str]], dict]:
    basis_values = set(SizeBasis.values)

    def build(n: int, row: dict[str, str]) -> dict:
        basis = _require(path, n, row, "Basis")
        if basis not in basis_values:
            choices = ", ".join(sorted(basis_values))
            raise HarnessDataError(f"{path}:{n}", "Basis", f"{basis!r} is not one of {choices}")
        return {
            "candidate": _require(path, n, row, "ID"),
            "instance_label": _require(path, n, row, "Instance"),
            "public_key_bytes": _optional_int(path, n, row, "PublicKeyBytes"),
            "ciphertext_bytes": _optional_int(path, n, row, "CiphertextBytes"),
            "signature_bytes": _optional_int(path, n, row, "SignatureBytes"),
            "basis": basis,
        }

    return build


def external_sizes_rows(path: Path, text: str) -> list[dict]:
    """Validated rows of an ``external_sizes.csv`` text (`path` names it in errors)."""
    return _validated_rows(path, text, _external_size(path), ("candidate", "instance_label"))


def _kat_issue(path: Path) -> Callable[[int, dict[str, str]], dict]:
    def build(n: int, row: dict[str, str]) -> dict:
        action = _require(path, n, row, "Action")
        if action not in KatIssue.Action.values:
            raise HarnessDataError(f"{path}:{n}", "Action", f"{action!r} is not measure|exclude")
        return {
            "candidate": _require(path, n, row, "ID"),
            "label_regex": _label_pattern(path, n, row),
            "action": action,
            "cause": _require(path, n, row, "Cause"),
        }

    return build


def _kex(path: Path) -> Callable[[int, dict[str, str]], dict]:
    def build(n: int, row: dict[str, str]) -> dict:
        return {
            "candidate": _require(path, n, row, "ID"),
            "instance_label": _require(path, n, row, "Instance"),
            "pk_a_bytes": _optional_int(path, n, row, "PkABytes") or 0,
            "pk_b_bytes": _optional_int(path, n, row, "PkBBytes") or 0,
            "protocol_message_bytes": _optional_int(path, n, row, "ProtocolMessageBytes") or 0,
        }

    return build


def _target(path: Path) -> Callable[[int, dict[str, str]], dict]:
    def build(n: int, row: dict[str, str]) -> dict:
        return {
            "candidate": _require(path, n, row, "ID"),
            "instance_label": _require(path, n, row, "Instance"),
            "target_bits": _optional_int(path, n, row, "TargetBits", maximum=4096),
        }

    return build


def _note(path: Path) -> Callable[[int, dict[str, str]], dict]:
    def build(n: int, row: dict[str, str]) -> dict:
        return {
            "candidate": _require(path, n, row, "ID"),
            "label_regex": _label_pattern(path, n, row),
            "note": _require(path, n, row, "Note"),
        }

    return build


def _system(path: Path) -> Callable[[int, dict[str, str]], dict]:
    def build(n: int, row: dict[str, str]) -> dict:
        return {
            "key": _require(path, n, row, "ID"),
            "arch": row.get("Arch", ""),
            "hostname": row.get("Hostname", ""),
            "description": row.get("Description", ""),
        }

    return build


# --- Writing ----------------------------------------------------------------------------------


def _merge(
    model: type[models.Model],
    keys: tuple[str, ...],
    rows: list[dict],
    change: CatalogChange,
    replace: bool,
) -> None:
    """Add and change `rows` (matched on `keys`); remove the others only when `replace`."""
    existing = {tuple(getattr(o, f) for f in keys): o for o in model.objects.all()}
    seen = set()
    for values in rows:
        key = tuple(values[f] for f in keys)
        seen.add(key)
        obj = existing.get(key)
        if obj is None:
            model.objects.create(**values)
            change.added += 1
        elif any(getattr(obj, f) != v for f, v in values.items()):
            for f, v in values.items():
                setattr(obj, f, v)
            obj.save()
            change.changed += 1
    stale = [o for k, o in existing.items() if k not in seen]
    change.stale = len(stale)
    if replace and stale:
        for obj in stale:  # one by one, so that each removal is kept in the history
            obj.delete()
        change.removed = True


def security_targets_apply() -> None:
    """Copy the security-target catalog onto the instances it names."""
    targets = {(t.candidate, t.instance_label): t.target_bits for t in SecurityTarget.objects.all()}
    changed = []
    for instance in Instance.objects.select_related("submission"):
        bits = targets.get((instance.submission.key, instance.label))
        if instance.security_target_bits != bits:
            instance.security_target_bits = bits
            changed.append(instance)
    Instance.objects.bulk_update(changed, ["security_target_bits"])


def _positioned(rows: list[dict]) -> list[dict]:
    return [{**row, "position": position} for position, row in enumerate(rows)]


#: (file, model, key fields, row builder, rows kept in file order)
CATALOGS = (
    ("external_sizes.csv", ExternalSize, ("candidate", "instance_label"), _external_size, False),
    ("kat_issues.csv", KatIssue, ("candidate", "label_regex"), _kat_issue, True),
    ("kex_bandwidth.csv", KexBandwidth, ("candidate", "instance_label"), _kex, False),
    ("security_targets.csv", SecurityTarget, ("candidate", "instance_label"), _target, False),
    ("summary_notes.csv", SummaryNote, ("candidate", "label_regex"), _note, True),
)


def _read_text(root: Path, name: str) -> str:
    limit = int(getattr(settings, "NGCC_IMPORT_MAX_FILE_BYTES", DEFAULT_MAX_FILE_BYTES))
    content = read_confined(root, name, limit=limit)
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HarnessDataError(str(root / name), "<file>", f"not UTF-8 text ({exc})") from exc


def _merge_systems(root: Path, summary: CatalogSummary) -> None:
    path = root / "systems.csv"
    change = CatalogChange("systems.csv")
    for values in _validated_rows(path, _read_text(root, "systems.csv"), _system(path), ("key",)):
        system, created = System.objects.get_or_create(key=values["key"], defaults=values)
        if created:
            change.added += 1
        elif any(getattr(system, k) != v for k, v in values.items()):
            for k, v in values.items():
                setattr(system, k, v)
            system.save()
            change.changed += 1
    summary.changes.append(change)
    summary.counts["systems"] += change.added + change.changed


@transaction.atomic
def catalogs_import(
    *, directory: Path, replace: bool = False, progress: ProgressCallback | None = None
) -> CatalogSummary:
    """Merge whichever known catalogs exist in `directory`; remove rows only if `replace`."""
    root = Path(directory).resolve()
    summary = CatalogSummary()
    present = [c for c in CATALOGS if (root / c[0]).exists()]
    has_systems = (root / "systems.csv").exists()
    total = len(present) + int(has_systems)
    if total == 0:
        raise HarnessDataError(str(root), "<folder>", "no known catalog (*.csv) found")
    for done, (name, model, keys, builder, ordered) in enumerate(present, start=1):
        path = root / name
        rows = _validated_rows(path, _read_text(root, name), builder(path), keys)
        change = CatalogChange(name)
        with audit_signal_paused():
            _merge(model, keys, _positioned(rows) if ordered else rows, change, replace)
        summary.files_seen += 1
        summary.changes.append(change)
        label = name.removesuffix(".csv").replace("_", " ")
        summary.counts[label] += change.added + change.changed + (change.stale * change.removed)
        if progress:
            progress(done, total, name)
    if has_systems:
        _merge_systems(root, summary)
        summary.files_seen += 1
        if progress:
            progress(total, total, "systems.csv")
    if summary.changed:
        security_targets_apply()
        size_audit_recompute()
        data_version_bump()
    return summary


@transaction.atomic
def external_sizes_upload(*, name: str, text: str, replace: bool = False) -> CatalogSummary:
    """Merge an uploaded external-size CSV (all rows valid, or nothing written)."""
    rows = external_sizes_rows(Path(name), text)
    summary = CatalogSummary(files_seen=1)
    change = CatalogChange(name)
    with audit_signal_paused():
        _merge(ExternalSize, ("candidate", "instance_label"), rows, change, replace)
    summary.changes.append(change)
    summary.counts["external sizes"] += change.added + change.changed + change.stale * replace
    if summary.changed:
        size_audit_recompute()
        data_version_bump()
    return summary


def _export_cell(value: object) -> str:
    text = "" if value is None else str(value)
    if text.startswith((*FORMULA_LEADS, "'")):
        return "'" + text
    return text


def external_sizes_csv() -> str:
    """The external-size catalog as CSV (`;`, quoted where needed, formula cells guarded)."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\n")
    writer.writerow(EXTERNAL_SIZES_COLUMNS)
    for e in ExternalSize.objects.order_by("candidate", "instance_label"):
        values = (
            e.candidate,
            e.instance_label,
            e.public_key_bytes,
            e.ciphertext_bytes,
            e.signature_bytes,
            e.basis,
        )
        writer.writerow([_export_cell(v) for v in values])
    return out.getvalue()
