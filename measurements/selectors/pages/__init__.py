"""Page builders: one module per web page, each returning plain data (rows, cells, notes).

A builder reads through the shared query helpers (`pages.common`), formats every figure with
`measurements.formatting` and returns dataclasses of strings and values; it never returns HTML or
Markdown. The web templates render the data, `measurements.rendering.markdown` writes the
published Markdown from the same data, so the two cannot disagree. URLs come from
`measurements.links` (no fallbacks).

Layout (add a page as a new module here, named after the page):

- `common` — query helpers and small shared types used by several pages;
- `candidate/` — the per-candidate page, one builder per section (§1–2, §3, §4–5, §6,
  symmetric, §7) and `candidate/__init__.py` assembling them;
- `index`, `summary`, `method`, `size_audit`, `survey`, `kat_overview` — the system pages.
"""
