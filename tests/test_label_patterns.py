"""Curator label patterns: RE2 only, refused when they do not compile."""

from __future__ import annotations

import pytest

from measurements.label_patterns import (
    LabelPatternError,
    compile_label_pattern,
    label_matches,
    label_pattern_problem,
)

CATASTROPHIC = "(.*.*.*.*.*.*)*X"


def test_catastrophic_pattern_is_evaluated_by_re2():
    # Python's `re` would backtrack for hours over this label; RE2 answers in one pass.
    assert label_matches(CATASTROPHIC, "a" * 20_000) is False
    assert label_matches(CATASTROPHIC, "a" * 20_000 + "X") is True


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("(", "not a valid pattern: missing ): ("),
        ("a(?=b)", "not a valid pattern: invalid perl operator: (?="),
        (r"(a)\1", "not a valid pattern: invalid escape sequence: \\1"),
        ("x" * 301, "longer than 300 characters"),
        ("a\x00", "contains a NUL byte"),
    ],
)
def test_invalid_patterns_are_refused_with_reason(pattern, problem):
    assert label_pattern_problem(pattern) == problem
    with pytest.raises(LabelPatternError):
        compile_label_pattern(pattern)
    assert label_matches(pattern, "anything") is False


def test_catalog_patterns_match_as_before():
    assert label_matches("NEV_.*_(3329|769_C|769)_ICCS", "NEV_x_769_C_ICCS")
    assert not label_matches("^MINI-", "XMINI-1")
    assert label_pattern_problem("NEV_.*_1409_ICCS") is None
