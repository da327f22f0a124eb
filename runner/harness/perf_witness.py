"""User-mode CPU cycles counted from outside the process (``perf_event_open``), where the
kernel and the hardware allow it.

A second witness for timing records: cycles the *kernel* counted in user mode for the child,
which the candidate cannot write.  Our VMs expose no PMU, so here :func:`perf_refusal` only
reports why it is unavailable, and that reason is kept with every record's witness.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
from functools import cache

PERF_TYPE_HARDWARE = 0
PERF_COUNT_HW_CPU_CYCLES = 0
ATTR_SIZE = 128  # PERF_ATTR_SIZE_VER7 and later accept a zero-padded 128-byte attr
#: attr.flags bits: disabled(0) inherit(1) ... exclude_kernel(5) exclude_hv(6)
FLAGS_USER_ONLY_INHERITED = (1 << 1) | (1 << 5) | (1 << 6)
SYSCALL = {"x86_64": 298, "aarch64": 241}


def _attr() -> bytes:
    head = struct.pack(
        "IIQQQQQ",
        PERF_TYPE_HARDWARE,
        ATTR_SIZE,
        PERF_COUNT_HW_CPU_CYCLES,
        0,  # sample_period
        0,  # sample_type
        0,  # read_format
        FLAGS_USER_ONLY_INHERITED,
    )
    return head + bytes(ATTR_SIZE - len(head))


def open_user_cycles(pid: int) -> tuple[int | None, str]:
    """A counter of ``pid``'s (and its future children's) user-mode cycles: (fd, '') or
    (None, why not)."""
    number = SYSCALL.get(platform.machine())
    if number is None:
        return None, f"perf_event_open: unknown syscall number on {platform.machine()}"
    libc = ctypes.CDLL(None, use_errno=True)
    attr = ctypes.create_string_buffer(_attr(), ATTR_SIZE)
    fd = libc.syscall(number, attr, ctypes.c_int(pid), ctypes.c_int(-1), ctypes.c_int(-1), 0)
    if fd < 0:
        err = ctypes.get_errno()
        return None, f"perf_event_open refused: {os.strerror(err)} (errno {err})"
    return fd, ""


def read_cycles(fd: int) -> int:
    return struct.unpack("Q", os.read(fd, 8))[0]


@cache
def perf_refusal() -> str:
    """Why user-mode cycles cannot be counted here ('' when they can)."""
    fd, why = open_user_cycles(os.getpid())
    if fd is not None:
        os.close(fd)
    return why
