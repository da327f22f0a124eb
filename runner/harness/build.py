"""Build one shared library per instance from the manifest's explicit sources.

Never runs a submission's Makefile, CMake or scripts: each listed source is
compiled to an object with a fixed flag set (``guide`` or ``harness-default``)
plus the manifest's include dirs and defines, then the objects and the harness
shim are linked into ``lib<label>.so`` with ``-Bsymbolic``, ``--no-undefined``
and a version script exporting only the NGCC API, the ICCS functions,
``drng_algorithm`` and ``ngcc_*``.

The compiler runs through the sandbox too (generous limits, same scrubbed
environment): one code path for every process, and a pathological source
cannot hang or exhaust the worker.  Objects stay in the build directory so
that the profiler (issue 5) can relink them with ``-Wl,--wrap=``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

from elftools.elf.elffile import ELFFile

from runner.harness.manifest import Instance, Manifest
from runner.harness.sandbox import Limits, Outcome, run_sandboxed

NATIVE_DIR = Path(__file__).resolve().parents[2] / "native"
SHIM_SOURCE = NATIVE_DIR / "shim" / "ngcc_shim.c"
VERSION_SCRIPT = NATIVE_DIR / "version.map"

_PERMISSIVE = [
    "-Wno-error=implicit-function-declaration",
    "-Wno-error=incompatible-pointer-types",
    "-Wno-error=int-conversion",
    "-Wno-error=implicit-int",
]
FLAG_SETS: dict[str, list[str]] = {
    "guide": [
        "-std=c99",
        "-Wpedantic",
        "-Wall",
        "-Wextra",
        "-O2",
        "-fPIC",
        "-D_GNU_SOURCE",
        *_PERMISSIVE,
    ],
    "harness-default": [
        "-std=gnu11",
        "-O2",
        "-fPIC",
        "-fwrapv",
        "-fno-strict-aliasing",
        "-fno-omit-frame-pointer",
        "-D_GNU_SOURCE",
    ],
}
#: C++ sources get the same flags with the C standard replaced.
CXX_STD = {"guide": "-std=c++17", "harness-default": "-std=gnu++17"}
LINK_FLAGS = ["-shared", "-Wl,-Bsymbolic", "-Wl,--no-undefined"]

COMPILE_LIMITS = Limits(
    address_space_bytes=8 << 30,
    cpu_seconds=600,
    wall_seconds=900,
    file_size_bytes=2 << 30,
    processes=64,
    output_bytes=256 << 10,
    pids_cgroup=False,  # no candidate code runs in the compiler
)
_WARNING = re.compile(r"^.*\bwarning:.*$", re.MULTILINE)


@dataclass
class SourceRecord:
    path: str  # relative to the submission root (or "<harness>/..." for the shim)
    sha256: str
    object: str
    command: list[str]
    returncode: int | None
    warnings: list[str] = field(default_factory=list)
    stderr: str = ""


@dataclass
class BuildResult:
    candidate: str
    label: str
    instance: str
    flags_label: str
    cflags: list[str]
    build_dir: Path
    compiler: str
    compiler_version: str
    ok: bool = False
    error: str = ""
    objects: list[Path] = field(default_factory=list)  # candidate objects, no shim
    shim_object: Path | None = None
    library: Path | None = None
    library_sha256: str = ""
    elf_load_bytes: int | None = None
    link_command: list[str] = field(default_factory=list)
    link_libs: list[str] = field(default_factory=list)  # e.g. ["-lm"]
    include_flags: list[str] = field(default_factory=list)  # -I... -D... of this instance
    sources: list[SourceRecord] = field(default_factory=list)
    link_stderr: str = ""

    @property
    def commands(self) -> list[list[str]]:
        return [s.command for s in self.sources] + (
            [self.link_command] if self.link_command else []
        )

    @property
    def warnings(self) -> list[str]:
        return [w for s in self.sources for w in s.warnings] + _WARNING.findall(self.link_stderr)

    @property
    def build_flags(self) -> str:
        return " ".join(self.cflags)

    def to_dict(self) -> dict:
        data = asdict(self)
        for key in ("build_dir", "shim_object", "library"):
            data[key] = str(data[key]) if data[key] else None
        data["objects"] = [str(o) for o in self.objects]
        data["commands"] = self.commands
        data["warnings"] = self.warnings
        return data


@cache
def compiler_version(compiler: str = "gcc") -> str:
    """E.g. ``gcc 12.2.0`` (from ``-dumpfullversion``)."""
    res = run_sandboxed([compiler, "-dumpfullversion", "-dumpversion"], limits=COMPILE_LIMITS)
    return f"{Path(compiler).name} {res.stdout.strip()}" if res.ok else Path(compiler).name


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def elf_load_bytes(path: Path) -> int:
    """Static image size: sum of p_memsz over PT_LOAD segments."""
    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        return sum(seg["p_memsz"] for seg in elf.iter_segments() if seg["p_type"] == "PT_LOAD")


def exported_symbols(path: Path) -> set[str]:
    """Defined global/weak symbols in the dynamic symbol table."""
    with open(path, "rb") as fh:
        dynsym = ELFFile(fh).get_section_by_name(".dynsym")
        if dynsym is None:
            return set()
        return {
            s.name
            for s in dynsym.iter_symbols()
            if s.name
            and s["st_shndx"] not in ("SHN_UNDEF", "SHN_ABS")  # ABS: version node names
            and s["st_info"]["bind"] in ("STB_GLOBAL", "STB_WEAK")
        }


def instance_flags(instance: Instance) -> list[str]:
    """-I and -D flags of an instance (after the fixed flag set)."""
    return [f"-I{d}" for d in instance.include_dirs] + [f"-D{d}" for d in instance.defines]


def _is_cxx(path: Path) -> bool:
    return path.suffix in (".cc", ".cpp")


def compile_command(
    source: Path, obj: Path, *, flags_label: str, extra: list[str], compiler: str = "gcc"
) -> list[str]:
    flags = list(FLAG_SETS[flags_label])
    if _is_cxx(source):
        compiler = "g++" if Path(compiler).name == "gcc" else compiler
        flags = [CXX_STD[flags_label] if f.startswith("-std=") else f for f in flags]
        flags = [f for f in flags if not f.startswith(("-Wno-error=implicit", "-Wno-error=int-"))]
    return [compiler, *flags, *extra, "-c", str(source), "-o", str(obj)]


def run_compile(
    command: list[str], cwd: Path, *, read_only: Sequence[Path] = ()
) -> tuple[int, str]:
    """Run a compiler or linker command in the sandbox: (exit status or -1, stderr).

    The compiler sees the toolchain, our harness sources (``native/``), the
    ``read_only`` paths (the candidate's tree) and ``cwd`` (writable) — nothing
    else, so ``#include``/``.incbin`` of any other file fails the build.
    """
    res = run_sandboxed(command, cwd=cwd, limits=COMPILE_LIMITS, read_only=[NATIVE_DIR, *read_only])
    if res.status in (Outcome.OK, Outcome.EXIT):
        return res.returncode or 0, res.stderr
    return -1, f"{res.stderr}\n{Path(command[0]).name}: {res.describe()}"


def _object_name(manifest: Manifest, source: Path) -> str:
    rel = manifest.rel(source) if source.is_relative_to(manifest.root) else source.name
    return re.sub(r"[^A-Za-z0-9._-]", "_", rel.replace("/", "__")) + ".o"


def build_dir_for(build_root: Path, manifest: Manifest, label: str, flags_label: str) -> Path:
    return Path(build_root) / manifest.candidate / flags_label / label


def _prepare(
    manifest: Manifest, instance: Instance, flags_label: str, build_root: Path, compiler: str
) -> BuildResult:
    bdir = build_dir_for(build_root, manifest, instance.label, flags_label)
    (bdir / "obj").mkdir(parents=True, exist_ok=True)
    result = BuildResult(
        candidate=manifest.candidate,
        label=instance.label,
        instance=instance.name,
        flags_label=flags_label,
        cflags=list(FLAG_SETS[flags_label]),
        build_dir=bdir,
        compiler=compiler,
        compiler_version=compiler_version(compiler),
        link_libs=[f"-l{lib}" for lib in instance.libs],
        include_flags=instance_flags(instance),
    )
    for src in instance.sources:
        obj = bdir / "obj" / _object_name(manifest, src)
        cmd = compile_command(
            src, obj, flags_label=flags_label, extra=result.include_flags, compiler=compiler
        )
        result.sources.append(
            SourceRecord(manifest.rel(src), sha256_file(src), str(obj), cmd, None)
        )
    meta = {
        "NGCC_CANDIDATE": manifest.candidate,
        "NGCC_INSTANCE": instance.label,
        "NGCC_CATEGORY": manifest.category,
        "NGCC_FLAGS": flags_label,
    }
    shim_obj = bdir / "obj" / "ngcc_shim.o"
    shim_cmd = compile_command(
        SHIM_SOURCE,
        shim_obj,
        flags_label=flags_label,
        extra=[f'-D{k}="{v}"' for k, v in meta.items()],
        compiler=compiler,
    )
    result.sources.append(
        SourceRecord(
            "<harness>/native/shim/ngcc_shim.c",
            sha256_file(SHIM_SOURCE),
            str(shim_obj),
            shim_cmd,
            None,
        )
    )
    return result


def _compile_one(record: SourceRecord, cwd: Path, root: Path) -> None:
    record.returncode, record.stderr = run_compile(record.command, cwd, read_only=[root])
    record.warnings = _WARNING.findall(record.stderr)


def _link(result: BuildResult, compiler: str) -> None:
    failed = [s for s in result.sources if s.returncode != 0]
    if failed:
        first = failed[0]
        result.error = f"compile failed: {first.path}: {_first_error(first.stderr)}"
        return
    objs = [Path(s.object) for s in result.sources]
    result.objects, result.shim_object = objs[:-1], objs[-1]
    lib = result.build_dir / f"lib{result.label}.so"
    linker = "g++" if any(s.path.endswith((".cc", ".cpp")) for s in result.sources) else compiler
    result.link_command = [
        linker,
        *LINK_FLAGS,
        f"-Wl,--version-script={VERSION_SCRIPT}",
        "-o",
        str(lib),
        *map(str, objs),
        *result.link_libs,
    ]
    rc, result.link_stderr = run_compile(result.link_command, result.build_dir)
    if rc != 0:
        result.error = f"link failed: {_first_error(result.link_stderr)}"
        return
    result.library = lib
    result.library_sha256 = sha256_file(lib)
    result.elf_load_bytes = elf_load_bytes(lib)
    result.ok = True


def _first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if "error" in line or "undefined reference" in line:
            return line.strip()
    return stderr.strip().splitlines()[-1] if stderr.strip() else "(no output)"


def _write_record(result: BuildResult) -> None:
    (result.build_dir / "build.json").write_text(json.dumps(result.to_dict(), indent=1))
    log = [" ".join(c) for c in result.commands]
    log += [s.stderr for s in result.sources if s.stderr] + [result.link_stderr]
    log.append(f"RESULT {'OK' if result.ok else 'BUILDFAIL'} {result.error}".rstrip())
    (result.build_dir / "build.log").write_text("\n".join(x for x in log if x) + "\n")


def build_instances(
    manifest: Manifest,
    instances: list[Instance] | None = None,
    *,
    flags_label: str = "guide",
    build_root: Path,
    jobs: int = 2,
    compiler: str = "gcc",
) -> list[BuildResult]:
    """Build several instances, compiling all their sources on ``jobs`` workers."""
    if flags_label not in FLAG_SETS:
        raise ValueError(f"unknown flag set {flags_label!r}")
    todo = list(instances if instances is not None else manifest.instances)
    # Compilers and the linker run with the build directory as cwd, so a relative build root
    # (the commands' default ``var/build``) must be made absolute against the caller's cwd first.
    root = Path(build_root).resolve()
    results = [_prepare(manifest, inst, flags_label, root, compiler) for inst in todo]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [
            pool.submit(_compile_one, rec, res.build_dir, manifest.root)
            for res in results
            for rec in res.sources
        ]
        for f in futures:
            f.result()
        list(pool.map(lambda r: _link(r, compiler), results))
    for res in results:
        _write_record(res)
    return results


def build_instance(
    manifest: Manifest,
    instance: Instance,
    *,
    flags_label: str = "guide",
    build_root: Path,
    jobs: int = 2,
    compiler: str = "gcc",
) -> BuildResult:
    """Build ``lib<label>.so`` for one instance (see :func:`build_instances`)."""
    return build_instances(
        manifest,
        [instance],
        flags_label=flags_label,
        build_root=build_root,
        jobs=jobs,
        compiler=compiler,
    )[0]
