"""The C side's copy of the domain registry: `native/driver/categories.h`, generated.

The timing driver and the profiler (`native/driver`, `native/profile`) refuse an operation its
category does not have, and print the operations in their usage text, from tables generated here
out of `measurements.domain`. The header is checked in (so the C sources compile on their own);
`tests/native/test_category_header.py` fails when it no longer matches the registry. After
changing a category, regenerate it:

    .venv/bin/python -m runner.harness.native_tables
"""

from __future__ import annotations

from pathlib import Path

from measurements.domain import CATEGORIES, HASH_MESSAGE_BYTES, CategorySpec

CATEGORY_HEADER = Path(__file__).resolve().parents[2] / "native" / "driver" / "categories.h"


def _native_categories() -> list[CategorySpec]:
    """The categories whose libraries the driver times (the ICCS helpers are timed as hash)."""
    return [spec for spec in CATEGORIES.values() if spec.submitted]


def _c_string(text: str) -> str:
    if not text.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"{text!r} is not a plain name for a C table")
    return f'"{text}"'


def _table_rows(categories: list[CategorySpec]) -> list[str]:
    rows = []
    for spec in categories:
        names = ", ".join(_c_string(op) for op in spec.operations)
        rows.append(f"    {{{_c_string(spec.key)}, {{{names}, NULL}}}},")
    rows.append("    {NULL, {NULL}},")
    return rows


def category_header() -> str:
    """The text of `native/driver/categories.h` for the current registry."""
    categories = _native_categories()
    slots = max(len(spec.operations) for spec in categories) + 1
    usage = " | ".join(" ".join(spec.operations) for spec in categories)
    lengths = " ".join(str(n) for n in HASH_MESSAGE_BYTES)
    lines = [
        "/* Categories and their timed operations, generated from measurements/domain.py by",
        " * runner/harness/native_tables.py (python -m runner.harness.native_tables): do not edit.",
        " * tests/native/test_category_header.py checks that it matches the registry. */",
        "#ifndef NGCC_CATEGORIES_H",
        "#define NGCC_CATEGORIES_H",
        "",
        "#include <stddef.h>",
        "#include <string.h>",
        "",
        "/* For the usage text: the operations of every category, and the guide's hash message",
        " * lengths S1..S8 in bytes (the --input-bytes values of a campaign). */",
        f'#define NGCC_OPERATIONS_USAGE "{usage}"',
        f'#define NGCC_HASH_MESSAGE_BYTES_USAGE "{lengths}"',
        "",
        "typedef struct {",
        "    const char *category;",
        f"    const char *operations[{slots}]; /* NULL-terminated, in page order */",
        "} ngcc_category_ops;",
        "",
        "static const ngcc_category_ops ngcc_category_table[] = {",
        *_table_rows(categories),
        "};",
        "",
        "/* The table entry of `category`, or NULL when the registry has no such category. */",
        "static inline const ngcc_category_ops *ngcc_category_find(const char *category)",
        "{",
        "    for (const ngcc_category_ops *c = ngcc_category_table; c->category; c++)",
        "        if (strcmp(c->category, category) == 0)",
        "            return c;",
        "    return NULL;",
        "}",
        "",
        "/* 1 when `operation` is one of the category's timed operations. */",
        "static inline int ngcc_operation_known(const ngcc_category_ops *c, const char *operation)",
        "{",
        "    for (const char *const *op = c->operations; *op; op++)",
        "        if (strcmp(*op, operation) == 0)",
        "            return 1;",
        "    return 0;",
        "}",
        "",
        "#endif",
    ]
    return "\n".join(lines) + "\n"


def write_category_header(path: Path = CATEGORY_HEADER) -> Path:
    """Write the header (only when its text changes, so builds keyed on it stay cached)."""
    text = category_header()
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)
    return path


if __name__ == "__main__":
    print(write_category_header())
