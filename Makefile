# Lode's two commands: `make demo` (quick start) and `make test` (the whole suite, what CI runs).

LODE_HOME ?= $(CURDIR)/lode-home
CARGO ?= cargo

.PHONY: demo test build bench fmt lint

## Build, generate and index a sample corpus into $(LODE_HOME), show example searches, serve.
demo:
	$(CARGO) run --release -p lode -- --home "$(LODE_HOME)" demo

## The whole test suite: formatting, lints, every crate's tests.
test:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) test --workspace

build:
	$(CARGO) build --release -p lode

## Ingest and search figures on a 1 GB generated corpus (see docs/PERFORMANCE.md).
bench: build
	./target/release/lode bench --size 1GB --json bench.json

fmt:
	$(CARGO) fmt --all
