"""Label patterns of the curated catalogs, evaluated in linear time.

KAT issues and summary notes name the instances they apply to with a regular expression entered
by curators (CSV or admin). Python's backtracking `re` can take exponential time on such input
(``(.*.*.*)*X``), so these patterns are compiled with RE2 (google-re2), whose matching time is
linear in the label, and validated when saved. No Django here.
"""

from __future__ import annotations

import functools

import re2

#: Longest pattern accepted (the model column holds 300 characters).
MAX_PATTERN_LENGTH = 300
#: Memory RE2 may use for one compiled pattern; a pattern needing more is refused.
_MAX_MEMORY = 1 << 20


#: A compiled label pattern (RE2's regexp object: `search`, `match`, `fullmatch`).
CompiledLabelPattern = re2._Regexp


class LabelPatternError(ValueError):
    """A label pattern RE2 cannot compile (or that is too long)."""


@functools.lru_cache(maxsize=1024)
def compile_label_pattern(pattern: str) -> CompiledLabelPattern:
    """The compiled RE2 pattern, or `LabelPatternError` with RE2's reason."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise LabelPatternError(f"longer than {MAX_PATTERN_LENGTH} characters")
    if "\x00" in pattern:
        raise LabelPatternError("contains a NUL byte")
    options = re2.Options()
    options.max_mem = _MAX_MEMORY
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", errors="replace")
        raise LabelPatternError(f"not a valid pattern: {reason}") from exc


def label_pattern_problem(pattern: str) -> str | None:
    """Why `pattern` is refused, or None when it compiles."""
    try:
        compile_label_pattern(pattern)
    except LabelPatternError as exc:
        return str(exc)
    return None


def label_matches(pattern: str, label: str) -> bool:
    """Whether `pattern` is found in `label`; a pattern that does not compile matches nothing."""
    try:
        return compile_label_pattern(pattern).search(label) is not None
    except LabelPatternError:
        return False
