# Lode's two commands: `make demo` (quick start) and `make test` (the whole suite, what CI runs).

LODE_HOME ?= $(CURDIR)/lode-home
CARGO ?= cargo

.PHONY: demo test build bench fmt lint compat ui e2e

PYTHON ?= python3
COMPAT_VENV ?= $(CURDIR)/.venv-compat

## Build, generate and index a sample corpus into $(LODE_HOME), show example searches, serve.
demo:
	$(CARGO) run --release -p lode -- --home "$(LODE_HOME)" demo

## The whole test suite: formatting, lints, every crate's tests, real clients, the web app in a browser.
test:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) test --workspace
	$(MAKE) compat
	$(MAKE) e2e

## Real Splunk clients (PyPI) against a real `lode serve`: compat/requirements.txt in a venv.
## `--profile test` reuses what `cargo test` built (same target/debug dir) instead of building
## every dependency a second time at opt-level 0.
compat:
	$(CARGO) build --profile test -p lode
	test -x "$(COMPAT_VENV)/bin/pip" || { rm -rf "$(COMPAT_VENV)"; $(PYTHON) -m venv "$(COMPAT_VENV)"; }
	"$(COMPAT_VENV)/bin/pip" install -q --disable-pip-version-check -r compat/requirements.txt
	cd compat && LODE_BIN="$${CARGO_TARGET_DIR:-$(CURDIR)/target}/debug/lode" \
		"$(COMPAT_VENV)/bin/python" -m pytest -q -p no:cacheprovider .

build:
	$(CARGO) build --release -p lode

## Ingest and search figures on a 1 GB generated corpus (see docs/PERFORMANCE.md).
bench: build
	./target/release/lode bench --size 1GB --json bench.json

fmt:
	$(CARGO) fmt --all

## The web app alone (cargo builds it too, through crates/server/build.rs).
ui:
	cd ui && npm ci --no-audit --no-fund && npm run build

## The web app in a real browser (Debian's chromium, playwright-core): ui/e2e/run.mjs against a
## fresh `lode serve`. UPDATE_SCREENSHOTS=1 rewrites docs/ui/*.png.
e2e:
	$(CARGO) build --profile test -p lode
	cd ui && { test -d node_modules/playwright-core || npm ci --no-audit --no-fund; } && \
		LODE_BIN="$${CARGO_TARGET_DIR:-$(CURDIR)/target}/debug/lode" node e2e/run.mjs
