"""Page builders: one module per web page, each returning plain data (rows, cells, notes).

A builder reads through the shared query helpers (`pages.common`), formats every figure with
`measurements.formatting` and returns dataclasses of strings and values; it never returns HTML or
Markdown. The web templates render the data, `measurements.rendering.markdown` writes the
published Markdown from the same data, so the two cannot disagree. URLs come from
`measurements.links` (no fallbacks).

Layout (add a page as a new module here, named after the page):

- `common` — query helpers used by several pages (campaign choice, category and operation
  order, label-regex catalogs);
- `cells` — the plain data pages return: `Cell`, `Table` and chart inputs;
- `candidate/` — the per-candidate page: `data` fetches every row once, one builder per
  section (`basics` §1–2, `kat` §3, `performance` §4–5, `sizes` §6, `symmetric`, `evidence` §7,
  `charts`) and `candidate/__init__.py` assembling them;
- `index`, `summary`, `method`, `size_audit`, `survey`, `kat_overview` — the system pages.
"""
