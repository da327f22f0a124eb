"""Known-answer tests and the functional check of a built instance.

The KAT executable is linked from the KAT driver and the instance's objects
(not the shared library), so the driver's own ``drng_algorithm`` is the one
the instance draws from.  It runs in the sandbox in a scratch directory; its
``output/KAT_*.txt`` is compared with the submitted reference over the
canonical text (see :func:`canonical_kat_text`).  Then the library itself is
exercised by ``runner/harness/functional_check.py`` in a sandboxed child Python.

:func:`check_instance` is the whole step for one instance: build with
``guide`` flags, KAT, and when either fails rebuild with ``harness-default``
and check again (the guide outcome is kept as ``guide_result``).
"""

from __future__ import annotations

import hashlib
import math
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path

from measurements.domain import CATEGORIES, KatStatus
from runner.harness.build import (
    BuildResult,
    build_instance,
    compile_command,
    exported_symbols,
    run_compile,
    sha256_file,
)
from runner.harness.functional_check import CDEFS as FUNCTIONAL_CDEFS
from runner.harness.functional_verdict import functional_verdict
from runner.harness.manifest import Instance, KatDigest, Manifest
from runner.harness.sandbox import Limits, Outcome, SandboxResult, run_sandboxed

FUNCTIONAL_CHECK = Path(__file__).resolve().with_name("functional_check.py")
#: Categories with a functional check (the others are reported as skipped).
FUNCTIONAL_CATEGORIES = frozenset(FUNCTIONAL_CDEFS)
DRIVER_EXIT = {
    256 - 3: "an operation returned non-zero (exit -3)",
    256 - 5: "decapsulation/verification disagrees, or the key-exchange secrets differ (exit -5)",
    256 - 6: "key exchange: the pass count disagrees with kex_get_passes_num (exit -6)",
}

#: Entry points a library must export, per category (from the domain registry).
REQUIRED_SYMBOLS = {key: spec.entry_points for key, spec in CATEGORIES.items()}
_LEN_LINE = re.compile(r"^\S*_Len\s*=")
_COUNT_LINE = re.compile(r"^\s*count\s*=", re.IGNORECASE)


def canonical_lines(
    lines: Iterable[str | bytes], *, nolen: bool = False, records: int | None = None
) -> Iterator[str]:
    """The canonical KAT text, line by line (streams: real KAT files reach hundreds of MB).

    CR removed, trailing blanks removed, empty lines dropped, each line ended by LF;
    ``nolen`` drops ``*_Len = …`` lines, ``records`` keeps the first N records.
    """
    seen = 0
    for raw in lines:
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", errors="replace")
        line = raw.replace("\r", "").rstrip()
        if not line or (nolen and _LEN_LINE.match(line)):
            continue
        if records is not None and _COUNT_LINE.match(line):
            seen += 1
            if seen > records:
                return
        yield line + "\n"


def canonical_kat_text(
    text: str | bytes, *, nolen: bool = False, records: int | None = None
) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return "".join(canonical_lines(text.split("\n"), nolen=nolen, records=records))


def canonical_digest(text: str | bytes, *, mode: str = "strict", records: int | None = None) -> str:
    canon = canonical_kat_text(text, nolen=mode == "nolen", records=records)
    return hashlib.sha256(canon.encode()).hexdigest()


def file_lines(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as fh:  # binary: split on LF only, CRs are dropped per line
        yield from fh


def file_canonical_digest(path: Path, *, mode: str = "strict", records: int | None = None) -> str:
    h = hashlib.sha256()
    for line in canonical_lines(file_lines(path), nolen=mode == "nolen", records=records):
        h.update(line.encode())
    return h.hexdigest()


def first_file_difference(expected: Path, actual: Path) -> str | None:
    """First differing canonical line of two files, streamed."""
    pairs = zip_longest(canonical_lines(file_lines(expected)), canonical_lines(file_lines(actual)))
    for n, (e, a) in enumerate(pairs, 1):
        if e != a:
            e = "<end of file>" if e is None else e[:-1]
            a = "<end of file>" if a is None else a[:-1]
            return f"line {n}: expected {_clip(e)} got {_clip(a)}"
    return None


def first_difference(expected: str, actual: str) -> str | None:
    """``line N: expected '…' got '…'`` over canonical texts, or None if equal."""
    exp, act = expected.splitlines(), actual.splitlines()
    for i in range(max(len(exp), len(act))):
        e = exp[i] if i < len(exp) else "<end of file>"
        a = act[i] if i < len(act) else "<end of file>"
        if e != a:
            return f"line {i + 1}: expected {_clip(e)} got {_clip(a)}"
    return None


def _clip(s: str, n: int = 80) -> str:
    return repr(s if len(s) <= n else s[:n] + "…")


@dataclass
class FunctionalResult:
    status: str
    detail: str = ""
    sizes: dict[str, int] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    sandbox: str = ""


@dataclass
class KatResult:
    candidate: str
    label: str
    instance: str
    flags_label: str
    status: KatStatus
    detail: str = ""
    first_difference: str | None = None
    reference: str = ""  # reference file (relative to root) or digest line
    output_file: str | None = None
    output_bytes: int | None = None
    output_raw_sha256: str | None = None  # the output file's bytes, as written
    # The comparison that decides PASS/MISMATCH is over canonical text ("strict", "nolen",
    # "nolen:N"): both digests below are taken that way, so on PASS they are equal.
    comparison: str = ""
    output_canonical_sha256: str | None = None
    reference_canonical_sha256: str | None = None
    output_manifest: str | None = None  # "<sha> strict <label>/<file>" over canonical text
    run: dict = field(default_factory=dict)
    functional: FunctionalResult | None = None
    log_path: Path | None = None
    log_sha256: str = ""
    guide_result: str | None = None
    stdout: str = ""
    stderr: str = ""

    def to_dict(self) -> dict:
        data = {k: v for k, v in self.__dict__.items() if k not in ("stdout", "stderr")}
        data["status"] = self.status.value
        data["log_path"] = str(self.log_path) if self.log_path else None
        data["functional"] = self.functional.__dict__ if self.functional else None
        return data


def _kat_limits(timeout: float, base: Limits | None) -> Limits:
    base = base or Limits()
    return base.but(wall_seconds=timeout, cpu_seconds=max(1, math.ceil(timeout)) + 1)


def _find_output(out_dir: Path, instance: Instance) -> Path | None:
    if not out_dir.is_dir():
        return None
    files = sorted(p for p in out_dir.iterdir() if p.is_file())
    wanted = [instance.kat_output]
    if instance.kat_reference is not None:
        wanted.append(instance.kat_reference.name)
    if instance.kat_digest is not None:
        wanted.append(instance.kat_digest.file)
    for name in filter(None, wanted):
        if (out_dir / name).is_file():
            return out_dir / name
    if len(files) == 1:
        return files[0]
    for p in files:
        if instance.name in p.name or instance.label in p.name:
            return p
    return None


def _status_of_run(res: SandboxResult) -> tuple[KatStatus, str] | None:
    if res.status is Outcome.OK:
        return None
    if res.status is Outcome.TIMEOUT:
        return KatStatus.TIMEOUT, res.detail
    if res.status is Outcome.EXIT and res.returncode in DRIVER_EXIT:
        # The driver's last stderr line says which record and call (e.g. the pass that
        # returned 1 too early); clipped, since the candidate shares that stream.
        said = res.stderr.strip().splitlines()[-1:]
        reason = f" — driver: {_clip(said[0])}" if said else ""
        return KatStatus.CRYPTOFAIL, DRIVER_EXIT[res.returncode] + reason
    return KatStatus.CRASH, res.detail


def functional_check(
    library: Path,
    *,
    category: str,
    digest_bits: int | None = None,
    limits: Limits | None = None,
) -> FunctionalResult:
    """Round-trip the library in a sandboxed child Python (cffi, guard bytes).

    The child only records what the library produced; the verdict is the parent's
    (:mod:`runner.harness.functional_verdict`)."""
    if category not in FUNCTIONAL_CATEGORIES:
        return FunctionalResult("SKIPPED", f"no functional check for {category}")
    with tempfile.TemporaryDirectory(prefix="ngcc-fc-") as scratch:
        calls = Path(scratch) / "calls.jsonl"
        argv = [
            sys.executable,
            "-I",
            str(FUNCTIONAL_CHECK),
            str(library),
            category,
            "--digest-bits",
            str(digest_bits or 256),
            "--result",
            str(calls),
        ]
        res = run_sandboxed(
            argv,
            cwd=scratch,
            limits=limits or Limits(wall_seconds=300, cpu_seconds=300),
            read_only=[FUNCTIONAL_CHECK, library],
        )
        text = calls.read_text(encoding="utf-8", errors="replace") if calls.is_file() else ""
    verdict = functional_verdict(text, child_ok=res.ok, child_outcome=res.describe())
    detail = verdict.detail
    if verdict.status in ("CRASH", "TIMEOUT") and not res.ok:
        detail = f"{detail}; {res.stderr[-300:]}"
    return FunctionalResult(
        status=verdict.status,
        detail=detail,
        sizes=verdict.sizes,
        timings_ms=verdict.timings_ms,
        sandbox=res.describe(),
    )


def _compare(result: KatResult, manifest: Manifest, instance: Instance, output: Path) -> None:
    result.output_file = output.name
    result.output_bytes = output.stat().st_size
    result.output_raw_sha256 = sha256_file(output)
    strict = file_canonical_digest(output)
    result.output_manifest = KatDigest(strict, "strict", None, instance.label, output.name).line()
    if instance.kat_reference is not None:
        result.reference = manifest.rel(instance.kat_reference)
        # Line-by-line equality of canonical texts is equality of their strict digests.
        result.comparison = "strict"
        result.output_canonical_sha256 = strict
        result.reference_canonical_sha256 = file_canonical_digest(instance.kat_reference)
        diff = first_file_difference(instance.kat_reference, output)
        if diff is None:
            result.status = KatStatus.PASS
        else:
            result.status, result.first_difference = KatStatus.MISMATCH, diff
            result.detail = f"differs from {result.reference}: {diff}"
    elif instance.kat_digest is not None:
        ref = instance.kat_digest
        result.reference = ref.line()
        got = file_canonical_digest(output, mode=ref.mode, records=ref.records)
        result.comparison = ref.mode + (f":{ref.records}" if ref.records is not None else "")
        result.output_canonical_sha256, result.reference_canonical_sha256 = got, ref.sha256
        if got == ref.sha256:
            result.status = KatStatus.PASS
        else:
            result.status = KatStatus.MISMATCH
            result.detail = f"{ref.mode} digest {got} != reference {ref.sha256}"
    else:
        result.status, result.detail = KatStatus.NOKAT, "no reference KAT given"


def run_kat(
    manifest: Manifest,
    instance: Instance,
    build: BuildResult,
    *,
    timeout: float | None = None,
    limits: Limits | None = None,
    functional: bool = True,
) -> KatResult:
    """Link, run and compare the KAT of one built instance; writes ``kat/<label>.log``."""
    result = KatResult(
        manifest.candidate, instance.label, instance.name, build.flags_label, KatStatus.BUILDFAIL
    )
    kat_dir = build.build_dir / "kat"
    shutil.rmtree(kat_dir, ignore_errors=True)
    (kat_dir / "run" / "output").mkdir(parents=True)
    notes: list[str] = []
    try:
        _run_kat_steps(
            result,
            manifest,
            instance,
            build,
            kat_dir,
            notes,
            timeout or instance.kat_timeout,
            limits,
            functional,
        )
    finally:
        _write_log(result, manifest, instance, build, kat_dir, notes)
    return result


def _run_kat_steps(
    result: KatResult,
    manifest: Manifest,
    instance: Instance,
    build: BuildResult,
    kat_dir: Path,
    notes: list[str],
    timeout: float,
    limits: Limits | None,
    functional: bool,
) -> None:
    if not build.ok or build.library is None:
        result.status, result.detail = KatStatus.BUILDFAIL, build.error
        return
    missing = [
        s for s in REQUIRED_SYMBOLS[manifest.category] if s not in exported_symbols(build.library)
    ]
    if missing:
        result.status = KatStatus.LOADFAIL
        result.detail = f"library does not export {', '.join(missing)}"
        return
    if instance.kat_driver is None:
        result.status, result.detail = KatStatus.NOKAT, "no KAT driver found"
    else:
        driver_obj, exe = kat_dir / "driver.o", kat_dir / f"KAT_{instance.label}"
        cmd = compile_command(
            instance.kat_driver,
            driver_obj,
            flags_label=build.flags_label,
            extra=build.include_flags,
            compiler=build.compiler,
        )
        link = [
            build.compiler,
            "-o",
            str(exe),
            str(driver_obj),
            *map(str, build.objects),
            *build.link_libs,
        ]
        for step in (cmd, link):
            notes.append("$ " + " ".join(step))
            rc, err = run_compile(step, kat_dir, read_only=[manifest.root, build.build_dir])
            if err.strip():
                notes.append(err.rstrip())
            if rc != 0:
                result.status = KatStatus.BUILDFAIL
                result.detail = f"KAT driver {'compile' if step is cmd else 'link'} failed"
                return
        run = run_sandboxed([str(exe)], cwd=kat_dir / "run", limits=_kat_limits(timeout, limits))
        result.stdout, result.stderr = run.stdout, run.stderr
        result.run = {
            "status": run.status.value,
            "detail": run.detail,
            "returncode": run.returncode,
            "signal": run.signal,
            "wall_seconds": round(run.wall_seconds, 3),
            "limits": run.limits,
        }
        failed = _status_of_run(run)
        if failed:
            result.status, result.detail = failed
            return
        output = _find_output(kat_dir / "run" / "output", instance)
        if output is None:
            result.status, result.detail = KatStatus.CRASH, "KAT driver wrote no output file"
            return
        _compare(result, manifest, instance, output)
    if functional and result.status in (KatStatus.PASS, KatStatus.NOKAT, KatStatus.MISMATCH):
        fc = functional_check(
            build.library,
            category=manifest.category,
            digest_bits=instance.digest_bits,
            limits=_kat_limits(max(timeout, 60.0), limits),  # same budget as the KAT
        )
        result.functional = fc
        if fc.status not in ("PASS", "SKIPPED") and result.status is not KatStatus.MISMATCH:
            result.status = KatStatus(fc.status)
            result.detail = f"functional check: {fc.detail}"


def _write_log(
    result: KatResult,
    manifest: Manifest,
    instance: Instance,
    build: BuildResult,
    kat_dir: Path,
    notes: list[str],
) -> None:
    head = {
        "library": f"lib/lib{instance.label}.so",
        "id": manifest.candidate,
        "type": manifest.category,
        "algorithm": manifest.algorithm,
        "instance": instance.name,
        "variant": manifest.variant,
        "source_dir": manifest.rel(instance.dir),
        "compiler": build.compiler_version,
        "build_flags": build.build_flags,
    }
    fc = result.functional
    head.update({k: str(v) for k, v in (fc.sizes if fc else {}).items()})
    lines = [f"{k:<11} = {v}" for k, v in head.items()]
    if fc and fc.timings_ms:
        # One call each, cold (first in a fresh process, no warm-up): not a timing figure.
        lines.append(
            "one cold call (functional check, not a measurement): "
            + "  ".join(f"{k} {v:.3f} ms" for k, v in fc.timings_ms.items())
        )
    lines += notes
    if result.run:
        lim = result.run["limits"]
        lines.append(
            f"limits address_space={lim['address_space_bytes']} cpu={lim['cpu_seconds']} s "
            f"file_size={lim['file_size_bytes']} processes=+{lim['processes']} "
            f"wall={lim['wall_seconds']} s"
        )
        lines.append(
            f"run    {result.run['status']} {result.run['detail']}".rstrip()
            + f" ({result.run['wall_seconds']} s)"
        )
    for name, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        if text.strip():
            lines.append(f"{name}:")
            lines += ["  " + s for s in text.rstrip().splitlines()[-40:]]
    if result.output_file:
        lines.append(f"wrote  output/{result.output_file} ({result.output_bytes} bytes)")
        lines.append(f"manifest {result.output_manifest}")
    if result.reference:
        lines.append(f"reference {result.reference}")
    if fc:
        lines.append(f"functional {fc.status} {fc.detail}".rstrip())
    lines.append(
        f"RESULT {manifest.candidate} {instance.label} {result.status.value} "
        f"{result.detail}".rstrip()
    )
    log = kat_dir / f"{instance.label}.log"
    log.write_text("\n".join(lines) + "\n")
    result.log_path = log
    result.log_sha256 = sha256_file(log)


@dataclass
class InstanceCheck:
    """Outcome of build + KAT for one instance, with the guide attempt kept."""

    label: str
    builds: list[BuildResult]
    kats: list[KatResult]

    @property
    def final(self) -> KatResult:
        return self.kats[-1]

    @property
    def build(self) -> BuildResult:
        return self.builds[-1]


def check_instance(
    manifest: Manifest,
    instance: Instance,
    *,
    build_root: Path,
    jobs: int = 2,
    fallback: bool = True,
    timeout: float | None = None,
    limits: Limits | None = None,
) -> InstanceCheck:
    """Build with ``guide``; on a failed build or KAT, retry with ``harness-default``."""
    check = InstanceCheck(instance.label, [], [])
    for flags in ("guide", "harness-default") if fallback else ("guide",):
        build = build_instance(
            manifest, instance, flags_label=flags, build_root=build_root, jobs=jobs
        )
        kat = run_kat(manifest, instance, build, timeout=timeout, limits=limits)
        check.builds.append(build)
        check.kats.append(kat)
        if kat.status in (KatStatus.PASS, KatStatus.NOKAT):
            break  # NOKAT: nothing to reproduce, other flags would not change that
    if len(check.kats) > 1:
        check.final.guide_result = check.kats[0].status.value
    return check
