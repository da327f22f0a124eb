"""Submission manifests: TOML loading, validation and path confinement.

A manifest describes one candidate submission and how to build each of its
instances (parameter sets).  The schema is documented in docs/harness.md.

Every path in a manifest is confined to the submission root: absolute paths,
``..`` components and symlinks resolving outside the root are rejected with a
:class:`ManifestError` naming the offending field, and all of this happens in
:func:`load_manifest`, before anything is compiled or run.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from measurements.domain import CATEGORIES as CATEGORY_SPECS
from measurements.domain import SUBMITTED_CATEGORIES

CATEGORIES = SUBMITTED_CATEGORIES

#: The operator's maximum for a KAT/step timeout (seconds): a manifest may ask for less only.
MAX_KAT_TIMEOUT_ENV = "NGCC_MAX_KAT_TIMEOUT"
DEFAULT_MAX_KAT_TIMEOUT = 900.0


def max_kat_timeout() -> float:
    """``NGCC_MAX_KAT_TIMEOUT`` from the worker's environment (default 900 s)."""
    raw = os.environ.get(MAX_KAT_TIMEOUT_ENV, "")
    try:
        value = float(raw) if raw else DEFAULT_MAX_KAT_TIMEOUT
    except ValueError:
        return DEFAULT_MAX_KAT_TIMEOUT
    return value if math.isfinite(value) and value > 0 else DEFAULT_MAX_KAT_TIMEOUT


#: Official KAT driver file name per category.
KAT_DRIVERS = {key: CATEGORY_SPECS[key].kat_driver for key in SUBMITTED_CATEGORIES}

#: Official ICCS sources added from the API package when an instance lacks them.
OFFICIAL_SOURCES = ("drng.c", "auxfunc.c")

#: Source extensions picked by the default selection.
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".S")

#: File stems (case-insensitive) left out of the default selection: KAT
#: drivers and generators, tests, benchmarks and other programs with a main().
DRIVER_PATTERN = re.compile(
    r"""^(?:
        (?:kat|pqcgenkat|genkat|gen_kat|pqckat|test|tests|bench|benchmark|speed|main|demo|example)
        (?:[_\-.].*)?
      | .*[_\-](?:test|tests|bench|benchmark|speed|kat|genkat|main|demo)
    )$""",
    re.IGNORECASE | re.VERBOSE,
)

_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+\-]*$")
_CANDIDATE = re.compile(r"^[a-z]+-[A-Za-z0-9]+$")
_DEFINE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(=.*)?$")
_LIB = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+\-]*$")
_DIGEST_LINE = re.compile(
    r"^(?P<sha>[0-9a-fA-F]{64})\s+(?P<mode>strict|nolen)(?::(?P<records>\d+))?\s+(?P<path>\S+)$"
)

_BUILD_KEYS = {"include_dirs", "defines", "libs", "extra_sources", "include", "exclude"}
_INSTANCE_KEYS = _BUILD_KEYS | {
    "label",
    "instance",
    "dir",
    "sources",
    "kat_driver",
    "kat_reference",
    "kat_digest",
    "kat_output",
    "kat_timeout",
    "digest_bits",
}
_CANDIDATE_KEYS = {"id", "category", "algorithm", "variant", "links", "root", "api_dir"}


class ManifestError(ValueError):
    """A manifest is malformed or names a path outside the submission root."""


@dataclass(frozen=True)
class KatDigest:
    """A digest manifest line ``<sha256> <strict|nolen>[:N] [<label>/]<file>``."""

    sha256: str
    mode: str  # "strict" or "nolen"
    records: int | None
    label: str | None
    file: str

    @classmethod
    def parse(cls, line: str, *, field_name: str = "kat_digest") -> KatDigest:
        m = _DIGEST_LINE.match(line.strip())
        if not m:
            raise ManifestError(
                f"{field_name}: expected '<sha256> <strict|nolen>[:records] <label>/<file>', "
                f"got {line!r}"
            )
        label, _, file = m["path"].rpartition("/")
        return cls(
            sha256=m["sha"].lower(),
            mode=m["mode"],
            records=int(m["records"]) if m["records"] else None,
            label=label or None,
            file=file,
        )

    def line(self) -> str:
        mode = self.mode + (f":{self.records}" if self.records is not None else "")
        path = f"{self.label}/{self.file}" if self.label else self.file
        return f"{self.sha256} {mode} {path}"


@dataclass(frozen=True)
class Instance:
    """One parameter set: everything needed to build ``lib<label>.so`` and check its KAT."""

    label: str
    name: str  # ALGORITHM_INSTANCE as the submission names it (defaults to label)
    dir: Path
    sources: tuple[Path, ...]
    include_dirs: tuple[Path, ...]
    defines: tuple[str, ...]
    libs: tuple[str, ...]
    kat_driver: Path | None
    kat_reference: Path | None
    kat_digest: KatDigest | None
    kat_output: str | None
    kat_timeout: float  # what the run gets: the manifest's value, capped by the operator
    digest_bits: int | None
    kat_timeout_requested: float | None = None  # what the manifest asked for


@dataclass(frozen=True)
class Manifest:
    path: Path
    root: Path
    candidate: str
    category: str
    algorithm: str
    variant: str
    links: tuple[str, ...]
    api_dir: Path | None
    instances: tuple[Instance, ...] = field(default_factory=tuple)
    sha256: str = ""

    def instance(self, label: str) -> Instance:
        for inst in self.instances:
            if inst.label == label:
                return inst
        raise KeyError(label)

    def rel(self, path: Path) -> str:
        """Path relative to the submission root, for logs and records."""
        return path.relative_to(self.root).as_posix()


def confine(root: Path, value: Any, field_name: str, *, kind: str = "file") -> Path:
    """Resolve ``value`` inside ``root`` or raise :class:`ManifestError`.

    ``kind`` is "file", "dir" or "any" (the path must exist in every case).
    """
    if not isinstance(value, str) or not value.strip():
        raise ManifestError(f"{field_name}: expected a non-empty relative path, got {value!r}")
    if "\x00" in value or "\\" in value:
        raise ManifestError(f"{field_name}: illegal character in path {value!r}")
    pure = PurePosixPath(value)
    if pure.is_absolute() or value.startswith("~"):
        raise ManifestError(f"{field_name}: absolute path {value!r} is not allowed")
    if ".." in pure.parts:
        raise ManifestError(f"{field_name}: '..' is not allowed in {value!r}")
    candidate = root / pure
    try:
        resolved = candidate.resolve(strict=True)
    except (FileNotFoundError, RuntimeError) as exc:
        raise ManifestError(f"{field_name}: {value!r} does not exist in the submission") from exc
    if not resolved.is_relative_to(root):
        raise ManifestError(
            f"{field_name}: {value!r} resolves to {resolved}, outside the submission root "
            "(escaping symlink)"
        )
    if kind == "file" and not resolved.is_file():
        raise ManifestError(f"{field_name}: {value!r} is not a file")
    if kind == "dir" and not resolved.is_dir():
        raise ManifestError(f"{field_name}: {value!r} is not a directory")
    return resolved


def _strs(value: Any, field_name: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ManifestError(f"{field_name}: expected a list of strings")
    return list(value)


def _check_keys(table: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise ManifestError(f"{where}: unknown key(s) {', '.join(unknown)}")


def default_sources(directory: Path, root: Path, field_name: str) -> list[Path]:
    """Every .c .cc .cpp .S file directly in ``directory`` not matching DRIVER_PATTERN."""
    found = []
    for path in sorted(directory.iterdir()):
        if path.suffix not in SOURCE_SUFFIXES or DRIVER_PATTERN.match(path.stem):
            continue
        resolved = path.resolve()
        if not resolved.is_relative_to(root):
            raise ManifestError(
                f"{field_name}: {path.name} resolves to {resolved}, outside the submission "
                "root (escaping symlink)"
            )
        if resolved.is_file():
            found.append(resolved)
    return found


def _select_sources(
    root: Path, inst_dir: Path, spec: dict[str, Any], where: str
) -> tuple[Path, ...]:
    explicit = _strs(spec.get("sources"), f"{where}.sources")
    if explicit:
        rel_dir = inst_dir.relative_to(root)
        chosen = [confine(root, (rel_dir / s).as_posix(), f"{where}.sources") for s in explicit]
    else:
        chosen = default_sources(inst_dir, root, f"{where}.dir")
    includes = _strs(spec.get("include"), f"{where}.include")
    excludes = _strs(spec.get("exclude"), f"{where}.exclude")
    for pattern in includes:
        if PurePosixPath(pattern).is_absolute() or ".." in PurePosixPath(pattern).parts:
            raise ManifestError(f"{where}.include: pattern {pattern!r} leaves the instance dir")
        for path in sorted(inst_dir.glob(pattern)):
            rel = path.relative_to(inst_dir).as_posix()
            resolved = confine(
                root, (inst_dir.relative_to(root) / rel).as_posix(), f"{where}.include"
            )
            if resolved not in chosen:
                chosen.append(resolved)
    if excludes:
        chosen = [
            p
            for p in chosen
            if not any(
                PurePosixPath(p.relative_to(inst_dir).as_posix()).match(x)
                if p.is_relative_to(inst_dir)
                else False
                for x in excludes
            )
        ]
    extra = _strs(spec.get("extra_sources"), f"{where}.extra_sources")
    chosen += [confine(root, s, f"{where}.extra_sources") for s in extra]
    if not chosen:
        raise ManifestError(f"{where}: no source files selected")
    return tuple(chosen)


def _with_official_sources(
    root: Path, api_dir: Path | None, sources: tuple[Path, ...]
) -> tuple[Path, ...]:
    """The official ICCS files come from the API package when the instance lacks them."""
    if api_dir is None:
        return sources
    names = {p.name for p in sources}
    for official in OFFICIAL_SOURCES:
        if official not in names and (api_dir / official).is_file():
            rel = (api_dir / official).relative_to(root).as_posix()
            sources += (confine(root, rel, "candidate.api_dir"),)
    return sources


def _include_dirs(
    root: Path, inst_dir: Path, api_dir: Path | None, spec: dict[str, Any], where: str
) -> tuple[Path, ...]:
    """The instance dir first, then the listed include dirs, then the API package."""
    include_dirs = [inst_dir]
    include_dirs += [
        confine(root, d, f"{where}.include_dirs", kind="dir")
        for d in _strs(spec.get("include_dirs"), f"{where}.include_dirs")
    ]
    if api_dir is not None:
        include_dirs.append(api_dir)
    return tuple(include_dirs)


def _defines_and_libs(spec: dict[str, Any], where: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    defines = _strs(spec.get("defines"), f"{where}.defines")
    for d in defines:
        if not _DEFINE.match(d):
            raise ManifestError(f"{where}.defines: {d!r} is not NAME or NAME=VALUE")
    libs = _strs(spec.get("libs"), f"{where}.libs")
    for lib in libs:
        if not _LIB.match(lib):
            raise ManifestError(f"{where}.libs: {lib!r} is not a library name (as in -l<name>)")
    return tuple(defines), tuple(libs)


def _kat_driver(
    root: Path,
    category: str,
    inst_dir: Path,
    api_dir: Path | None,
    spec: dict[str, Any],
    where: str,
) -> Path | None:
    """The given KAT driver, else the category's official one from the instance dir or the API."""
    if spec.get("kat_driver") is not None:
        return confine(root, spec["kat_driver"], f"{where}.kat_driver")
    for d in (inst_dir, api_dir):
        if d is not None and (d / KAT_DRIVERS[category]).is_file():
            return confine(
                root,
                (d / KAT_DRIVERS[category]).relative_to(root).as_posix(),
                f"{where}.kat_driver",
            )
    return None


def _kat_expectations(
    root: Path, raw: dict[str, Any], spec: dict[str, Any], where: str
) -> dict[str, Any]:
    """kat_reference, kat_digest and kat_output, each checked."""
    kat_reference = None
    if raw.get("kat_reference") is not None:
        kat_reference = confine(root, raw["kat_reference"], f"{where}.kat_reference")
    kat_digest = None
    if raw.get("kat_digest") is not None:
        if not isinstance(raw["kat_digest"], str):
            raise ManifestError(f"{where}.kat_digest: expected a string")
        kat_digest = KatDigest.parse(raw["kat_digest"], field_name=f"{where}.kat_digest")
    kat_output = spec.get("kat_output")
    if kat_output is not None and (
        not isinstance(kat_output, str) or "/" in kat_output or kat_output.startswith(".")
    ):
        raise ManifestError(f"{where}.kat_output: expected a plain file name")
    return {"kat_reference": kat_reference, "kat_digest": kat_digest, "kat_output": kat_output}


def _run_settings(spec: dict[str, Any], where: str) -> dict[str, Any]:
    """kat_timeout (seconds) and digest_bits, each checked.

    The manifest may ask for less than the operator's maximum (`max_kat_timeout`), never for
    more: the run gets the smaller of the two, the request is kept for the record."""
    timeout = spec.get("kat_timeout", max_kat_timeout())
    if not isinstance(timeout, int | float) or not math.isfinite(timeout) or timeout <= 0:
        raise ManifestError(f"{where}.kat_timeout: expected a positive number of seconds")
    digest_bits = spec.get("digest_bits")
    if digest_bits is not None and (not isinstance(digest_bits, int) or digest_bits <= 0):
        raise ManifestError(f"{where}.digest_bits: expected a positive integer")
    return {
        "kat_timeout": min(float(timeout), max_kat_timeout()),
        "kat_timeout_requested": float(timeout),
        "digest_bits": digest_bits,
    }


def _instance_label(raw: Any, index: int) -> str:
    where = f"instance[{index}]"
    if not isinstance(raw, dict):
        raise ManifestError(f"{where}: expected a table")
    _check_keys(raw, _INSTANCE_KEYS, where)
    label = raw.get("label")
    if not isinstance(label, str) or not _LABEL.match(label):
        raise ManifestError(f"{where}.label: expected [A-Za-z0-9._+-], got {label!r}")
    return label


def _instance(
    root: Path,
    category: str,
    api_dir: Path | None,
    defaults: dict[str, Any],
    raw: dict[str, Any],
    index: int,
) -> Instance:
    label = _instance_label(raw, index)
    where = f"instance[{label}]"
    spec = {**defaults, **raw}
    inst_dir = confine(root, raw.get("dir"), f"{where}.dir", kind="dir")
    sources = _with_official_sources(root, api_dir, _select_sources(root, inst_dir, spec, where))
    include_dirs = _include_dirs(root, inst_dir, api_dir, spec, where)
    defines, libs = _defines_and_libs(spec, where)
    kat_driver = _kat_driver(root, category, inst_dir, api_dir, spec, where)
    expectations = _kat_expectations(root, raw, spec, where)
    run_settings = _run_settings(spec, where)
    name = raw.get("instance", label)
    if not isinstance(name, str) or not name:
        raise ManifestError(f"{where}.instance: expected a string")
    return Instance(
        label=label,
        name=name,
        dir=inst_dir,
        sources=sources,
        include_dirs=include_dirs,
        defines=defines,
        libs=libs,
        kat_driver=kat_driver,
        **expectations,
        **run_settings,
    )


def _read_manifest(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parsed TOML and its [candidate] table, with the top-level keys checked."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"{path}: cannot read manifest: {exc}") from exc
    _check_keys(data, {"schema", "candidate", "defaults", "instance"}, "manifest")
    if data.get("schema", 1) != 1:
        raise ManifestError(f"schema: unsupported version {data.get('schema')!r}")
    cand = data.get("candidate")
    if not isinstance(cand, dict):
        raise ManifestError("candidate: missing [candidate] table")
    _check_keys(cand, _CANDIDATE_KEYS, "candidate")
    return data, cand


def _submission_root(path: Path, cand: dict[str, Any], root: Path | str | None) -> Path:
    """The operator's root if given (trusted), else the manifest's dir + ``candidate.root``."""
    if root is not None:
        return Path(root).resolve(strict=True)
    if cand.get("root") not in (None, "."):
        return confine(path.parent, cand["root"], "candidate.root", kind="dir")
    return path.parent


def _candidate_identity(cand: dict[str, Any]) -> tuple[str, str, str]:
    """(id, category, algorithm) of the [candidate] table, each checked."""
    cid = cand.get("id")
    if not isinstance(cid, str) or not _CANDIDATE.match(cid):
        raise ManifestError(f"candidate.id: expected e.g. 'kem-ex1', got {cid!r}")
    category = cand.get("category")
    if category not in CATEGORIES:
        raise ManifestError(f"candidate.category: expected one of {CATEGORIES}, got {category!r}")
    algorithm = cand.get("algorithm")
    if not isinstance(algorithm, str) or not algorithm:
        raise ManifestError("candidate.algorithm: expected a non-empty string")
    return cid, category, algorithm


def _instance_tables(data: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """The [defaults] table and the [[instance]] tables, checked for shape."""
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise ManifestError("defaults: expected a table")
    _check_keys(defaults, _BUILD_KEYS | {"kat_timeout", "kat_output", "digest_bits"}, "defaults")
    raw_instances = data.get("instance")
    if not isinstance(raw_instances, list) or not raw_instances:
        raise ManifestError("instance: at least one [[instance]] table is required")
    return defaults, raw_instances


def load_manifest(path: Path | str, *, root: Path | str | None = None) -> Manifest:
    """Load and validate a manifest; every path is confined before this returns.

    ``root`` overrides the submission root (a trusted, operator-given
    directory); by default it is the manifest's directory joined with the
    manifest's optional ``candidate.root``, itself confined to that directory.
    """
    path = Path(path).resolve()
    data, cand = _read_manifest(path)
    base = _submission_root(path, cand, root)
    cid, category, algorithm = _candidate_identity(cand)
    api_dir = None
    if cand.get("api_dir") is not None:
        api_dir = confine(base, cand["api_dir"], "candidate.api_dir", kind="dir")
    defaults, raw_instances = _instance_tables(data)
    instances = tuple(
        _instance(base, category, api_dir, defaults, raw, i) for i, raw in enumerate(raw_instances)
    )
    labels = [i.label for i in instances]
    if len(set(labels)) != len(labels):
        raise ManifestError("instance: duplicate labels")
    return Manifest(
        path=path,
        root=base,
        candidate=cid,
        category=category,
        algorithm=algorithm,
        variant=str(cand.get("variant", "reference")),
        links=tuple(_strs(cand.get("links"), "candidate.links")),
        api_dir=api_dir,
        instances=instances,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
    )
