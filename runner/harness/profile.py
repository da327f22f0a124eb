"""The ICCS symmetric-primitive profile: relink with ``-Wl,--wrap`` and run ``ngcc-prof``.

A reference library is linked a second time from the same objects, with ``--wrap=<fn>`` for each
of ``pseudohash``, ``pseudoXOF``, ``sm3hash`` and ``get_random_number`` that the objects define,
plus our wrapper objects (``native/profile``).  ``--wrap`` redirects only references that cross an
object-file boundary; a wrapped call made inside another wrapped call is not counted again.
``ngcc-prof`` then runs the operation repeatedly with profiling on and prints calls and ticks per
(function, input bits, output bits).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from measurements.records import HashProfileRecord
from runner.harness.driver_output import (
    DriverOutputError,
    ProfileRun,
    build_profile_record,
    parse_profile_output,
)
from runner.harness.sandbox import Limits, run_sandboxed
from runner.harness.timing import (
    DRIVER_CFLAGS,
    NATIVE_DIR,
    _sources_digest,
    compile_native,
    driver_options,
)

WRAPPABLE = ("pseudohash", "pseudoXOF", "sm3hash", "get_random_number")
PROFILE_DIR = NATIVE_DIR / "profile"
PROF_SOURCES = [
    PROFILE_DIR / "prof_main.c",
    *(
        NATIVE_DIR / "driver" / n
        for n in ("cli.c", "ops_setup.c", "ops_calls.c", "ops_kex.c", "json.c")
    ),
]
PROF_HEADERS = [
    *sorted((NATIVE_DIR / "driver").glob("*.h")),
    PROFILE_DIR / "prof.h",
    NATIVE_DIR / "counter" / "counter.h",
]
#: Objects linked into the profiled library besides the per-function wrappers.
CORE_SOURCES = [PROFILE_DIR / "prof_core.c", NATIVE_DIR / "counter" / "counter.c"]
OBJECT_CFLAGS = [*DRIVER_CFLAGS, "-fPIC"]


class ProfileError(RuntimeError):
    """The profile step could not produce a profile."""


@dataclass(frozen=True)
class ProfileParams:
    target_s: float = 1.0  # profiled loop length
    max_operations: int = 1000
    warmup_below_s: float = 5.0  # one warm-up call when a call is shorter than this
    timeout_base_s: float = 300.0
    timeout_factor: float = 3.0


@dataclass(frozen=True)
class ProfileTools:
    prof_driver: Path
    core_objects: tuple[Path, ...]
    wrap_objects: dict[str, Path]


def build_profile_tools(*, out_dir: Path, compiler: str = "gcc") -> ProfileTools:
    """Build ``ngcc-prof`` and the wrapper objects (cached by source digest)."""
    from runner.harness.build import run_compile

    out_dir = Path(out_dir)
    driver = compile_native(
        name="ngcc-prof",
        sources=PROF_SOURCES,
        headers=PROF_HEADERS,
        out_dir=out_dir,
        libs=["-ldl"],
        compiler=compiler,
    )
    objects: dict[str, Path] = {}
    sources = {src.stem: src for src in CORE_SOURCES}
    sources |= {fn: PROFILE_DIR / f"wrap_{fn}.c" for fn in WRAPPABLE}
    digest = _sources_digest([*sources.values(), *PROF_HEADERS], OBJECT_CFLAGS)
    for key, src in sources.items():
        obj = out_dir / f"{src.stem}-{digest}.o"
        if not obj.exists():
            cmd = [compiler, *OBJECT_CFLAGS, "-c", str(src), "-o", str(obj)]
            rc, stderr = run_compile(cmd, out_dir)
            if rc != 0:
                raise ProfileError(f"cannot compile {src.name}: {stderr.strip()}")
        objects[key] = obj
    core = tuple(objects[s.stem] for s in CORE_SOURCES)
    return ProfileTools(driver, core, {fn: objects[fn] for fn in WRAPPABLE})


def defined_symbols(objects: Iterable[Path]) -> set[str]:
    """Global or weak symbols defined (not merely referenced) by the given object files."""
    names: set[str] = set()
    for path in objects:
        with open(path, "rb") as fh:
            for section in ELFFile(fh).iter_sections():
                if not isinstance(section, SymbolTableSection):
                    continue
                for sym in section.iter_symbols():
                    if (
                        sym.name
                        and sym["st_shndx"] != "SHN_UNDEF"
                        and sym["st_info"]["bind"] in ("STB_GLOBAL", "STB_WEAK")
                    ):
                        names.add(sym.name)
    return names


def wrappable_functions(objects: Iterable[Path]) -> list[str]:
    """Which of `WRAPPABLE` the objects define (only those can be wrapped: ``__real_`` must
    resolve)."""
    defined = defined_symbols(objects)
    return [fn for fn in WRAPPABLE if fn in defined]


def link_profile_library(
    *,
    objects: Sequence[Path],
    out: Path,
    tools: ProfileTools,
    link_libs: Sequence[str] = (),
    compiler: str = "gcc",
) -> tuple[Path, list[str], list[str]]:
    """Link ``objects`` + wrappers into ``out``; returns (library, wrapped functions, command)."""
    from runner.harness.build import LINK_FLAGS, VERSION_SCRIPT, run_compile

    wrapped = wrappable_functions(objects)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [
        compiler,
        *LINK_FLAGS,
        f"-Wl,--version-script={VERSION_SCRIPT}",
        *(f"-Wl,--wrap={fn}" for fn in wrapped),
        "-o",
        str(out),
        *map(str, objects),
        *map(str, tools.core_objects),
        *(str(tools.wrap_objects[fn]) for fn in wrapped),
        *link_libs,
    ]
    inputs = {Path(p).parent for p in (*objects, *tools.core_objects)}
    rc, stderr = run_compile(cmd, out.parent, read_only=sorted(inputs))
    if rc != 0:
        raise ProfileError(f"profile link failed: {stderr.strip()}")
    return out, wrapped, cmd


def plan_profile(*, call_s: float, params: ProfileParams = ProfileParams()) -> tuple[int, int]:
    """(operations, warm-ups) for a profile run of an operation taking ``call_s`` per call."""
    n = max(1, min(params.max_operations, math.floor(params.target_s / max(call_s, 1e-9))))
    return n, 1 if call_s < params.warmup_below_s else 0


def run_profile(
    *,
    tools: ProfileTools,
    library: Path,
    operation: str,
    operations: int,
    warmups: int,
    input_bytes: int = 0,
    cpu: int | None = None,
    counter: str | None = None,
    timeout_s: float = 300.0,
    limits: Limits | None = None,
    digest_bits: int | None = None,
) -> tuple[ProfileRun, list[str], str]:
    """Run ``ngcc-prof`` in the sandbox; returns (parsed run, command, stderr)."""
    options = driver_options(
        cpu=cpu, counter=counter, input_bytes=input_bytes, digest_bits=digest_bits
    )
    options += ["--iterations", str(operations), "--warmups", str(warmups)]
    argv = [str(tools.prof_driver), *options, str(library), operation]
    # Like the timing driver: pid 1 of its namespace, the record on the parent's own pipe.
    res = run_sandboxed(
        argv,
        limits=(limits or Limits()).but(wall_seconds=timeout_s),
        read_only=[library],
        single_process=True,
        result_option="--result-fd",
    )
    try:
        run = parse_profile_output(res.channel.decode("utf-8", errors="replace"))
    except DriverOutputError as exc:
        raise ProfileError(f"{operation}: {res.describe()}: {exc}") from exc
    return run, argv, res.stderr


def profile_operation(
    *,
    tools: ProfileTools,
    library: Path,
    operation: str,
    candidate: str,
    label: str,
    call_s: float,
    input_bytes: int = 0,
    params: ProfileParams = ProfileParams(),
    cpu: int | None = None,
    counter: str | None = None,
    digest_bits: int | None = None,
) -> HashProfileRecord:
    """Profile one operation of a wrapped library; returns its hash profile record."""
    n, warm = plan_profile(call_s=call_s, params=params)
    timeout = params.timeout_base_s + params.timeout_factor * (n + warm) * call_s
    run, argv, stderr = run_profile(
        tools=tools,
        library=library,
        operation=operation,
        operations=n,
        warmups=warm,
        input_bytes=input_bytes,
        cpu=cpu,
        counter=counter,
        timeout_s=timeout,
        digest_bits=digest_bits,
    )
    if run.status != "complete":
        raise ProfileError(f"{operation}: {run.error}")
    return build_profile_record(
        run=run, candidate=candidate, label=label, command=argv, stderr=stderr
    )


__all__ = [
    "ProfileError",
    "ProfileParams",
    "ProfileTools",
    "build_profile_tools",
    "defined_symbols",
    "link_profile_library",
    "plan_profile",
    "profile_operation",
    "run_profile",
    "wrappable_functions",
]
