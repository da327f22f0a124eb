"""Capture the environment of a target box and check that its figures can be trusted.

Everything is read from /proc, /sys and the tools' own version output; nothing is assumed. The
host checks are those that make cycle counts comparable: turbo/boost off, governor
`performance`, SMT off, minimum = maximum frequency, a core we can pin to, and a cycle counter.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
from pathlib import Path
from typing import Any

SYS_CPU = Path("/sys/devices/system/cpu")


def _read(path: Path | str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def _first_line_of(command: list[str]) -> str | None:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if text else None


def _cpuinfo_model() -> str | None:
    text = _read("/proc/cpuinfo") or ""
    for key in ("model name", "Model", "Hardware", "CPU part"):
        match = re.search(rf"^{key}\s*:\s*(.+)$", text, re.MULTILINE)
        if match:
            return match.group(1).strip()
    return platform.processor() or None


def _os_release() -> str | None:
    text = _read("/etc/os-release") or ""
    match = re.search(r'^PRETTY_NAME="?([^"\n]+)"?$', text, re.MULTILINE)
    return match.group(1) if match else None


def _memory_kib() -> int | None:
    text = _read("/proc/meminfo") or ""
    match = re.search(r"^MemTotal:\s+(\d+) kB", text, re.MULTILINE)
    return int(match.group(1)) if match else None


def _virtualized() -> bool:
    flags = _read("/proc/cpuinfo") or ""
    return " hypervisor" in flags or bool(_read("/sys/hypervisor/type"))


def capture_environment(cpu: int) -> dict[str, Any]:
    """The environment record stored with the system and shown in §2 of the pages."""
    freq = SYS_CPU / f"cpu{cpu}" / "cpufreq"
    return {
        "hostname": platform.node(),
        "architecture": platform.machine(),
        "cpu_model": _cpuinfo_model(),
        "machine": _read("/sys/devices/virtual/dmi/id/product_name")
        or _read("/proc/device-tree/model"),
        "cpu_number": cpu,
        "logical_cpus_online": _read(SYS_CPU / "online"),
        "virtualized": _virtualized(),
        "memory_total_kib": _memory_kib(),
        "os": _os_release(),
        "kernel": platform.release(),
        "compiler": _first_line_of(["gcc", "--version"]),
        "cmake": _first_line_of(["cmake", "--version"]),
        "python": platform.python_version(),
        "perf_event_paranoid": _read("/proc/sys/kernel/perf_event_paranoid"),
        "cpufreq_governor": _read(freq / "scaling_governor"),
        "cpufreq_driver": _read(freq / "scaling_driver"),
        "cpufreq_min_khz": _read(freq / "scaling_min_freq"),
        "cpufreq_max_khz": _read(freq / "scaling_max_freq"),
        "intel_pstate_no_turbo": _read(SYS_CPU / "intel_pstate" / "no_turbo"),
        "cpufreq_boost": _read(SYS_CPU / "cpufreq" / "boost"),
        "smt_control": _read(SYS_CPU / "smt" / "control"),
    }


def host_problems(environment: dict[str, Any], counter: dict[str, Any] | None = None) -> list[str]:
    """What keeps this host from giving comparable figures (empty: a fixed host)."""
    problems: list[str] = []
    env = environment
    if env.get("virtualized"):
        problems.append("virtual machine: no fixed clock, cycle counts are not comparable")
    if env.get("intel_pstate_no_turbo") not in (None, "1"):
        problems.append("turbo is on: set /sys/devices/system/cpu/intel_pstate/no_turbo to 1")
    if env.get("cpufreq_boost") not in (None, "0"):
        problems.append("boost is on: set /sys/devices/system/cpu/cpufreq/boost to 0")
    governor = env.get("cpufreq_governor")
    if governor is None:
        problems.append("no cpufreq governor: the clock is left to the firmware")
    elif governor != "performance":
        problems.append(f"governor is {governor!r}, not 'performance'")
    lo, hi = env.get("cpufreq_min_khz"), env.get("cpufreq_max_khz")
    if lo is not None and hi is not None and lo != hi:
        problems.append(f"minimum frequency {lo} kHz differs from maximum {hi} kHz")
    if env.get("smt_control") not in (None, "off", "notsupported", "forceoff"):
        problems.append(f"SMT is {env.get('smt_control')!r}: turn it off")
    cpu = env.get("cpu_number")
    try:
        if cpu is None or cpu not in os.sched_getaffinity(0):
            problems.append(f"core {cpu} cannot be pinned from this process")
    except AttributeError:  # pragma: no cover - non-Linux
        problems.append("cannot pin to a core on this platform")
    paranoid = env.get("perf_event_paranoid")
    if counter is not None and counter.get("name") != "perf_cycles":
        detail = f" (perf_event_paranoid={paranoid})" if paranoid is not None else ""
        problems.append(
            f"hardware cycle counter unavailable{detail}: falling back to "
            f"{counter.get('name', 'a time counter')}"
        )
    return problems
