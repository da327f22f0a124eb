.PHONY: demo test setup lint bench

demo:   ## set up, load data and serve on http://127.0.0.1:8000
	scripts/demo.sh

test:   ## set up and run the whole test suite (SQLite, then PostgreSQL/Redis when reachable)
	scripts/test.sh

setup:
	scripts/setup.sh

lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/lint-imports

bench:
	scripts/setup.sh && for b in bench/*; do [ -x "$$b" ] && "$$b"; done
