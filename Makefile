# SPDX-License-Identifier: GPL-2.0-only
#
# The literate-drbg pipeline.  `make conform` is the main job, `make check`
# the tests; both install what is missing first.  See README.md.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

PY := /usr/bin/python3
export KCACHE ?= $(HOME)/.cache/literate-drbg
ACCEL ?= tcg
BOOTS ?=
export ACCEL BOOTS
# CAVS .rsp directories for the cavs boot, colon-separated (default:
# vectors/cavs:vectors/extra); make conform VECTORS=DIR runs DIR's files.
VECTORS ?=
export VECTORS

# The noweb sources, in tangle.conf's order.
NW := $(shell awk '$$1 == "source" { print $$2 }' tangle.conf)

.PHONY: help deps deps-book lint tangle drift checkpatch kernel conform \
	host-tests check book bench clean cache-clean prodconfig prodcheck kernel-debug conform-debug teeth bisect modules-check i386check

help:
	@echo "make conform     tangle, build the kernel, boot it, write build/conformance/report.*"
	@echo "make check       lint, drift check, checkpatch, host tests, conform; ends with 'N passed, N failed'"
	@echo "make tangle      write tangled/ from the book"
	@echo "make kernel      apply tangled/patches to the cached tree and build the test kernel"
	@echo "make book        render the book (HTML and PDF) into build/book"
	@echo "make book-check  render the book and check it (links, chunks, browser, gaps)"
	@echo "make deps        install missing Debian packages (as root)"
	@echo "make clean       remove build/;  make cache-clean: remove the kernel cache $(KCACHE)"

deps:
	@tools/deps.sh build

deps-book:
	@tools/deps.sh book

lint: deps
	@$(PY) tools/nw.py lint

# One notangle per output, then the series from the edit scripts.  Skipped
# when tangled/ is what the same sources and tools made last time
# (tools/tangle_stamp.py); `make drift` always tangles afresh.
tangle: deps
	@$(PY) tools/tangle_stamp.py fresh || { \
		echo "tangle: $(words $(NW)) sources -> tangled/" && \
		$(PY) tools/nw.py tangle tangled build/tangle/edits && \
		$(PY) tools/series.py build/tangle/edits tangled/patches && \
		$(PY) tools/tangle_stamp.py write; }

# tangled/ must be exactly what the book makes: tangle into a scratch
# directory and compare byte for byte.
drift: deps
	@rm -rf build/drift && mkdir -p build/drift/out
	@$(PY) tools/nw.py tangle build/drift/out build/drift/edits
	@$(PY) tools/series.py build/drift/edits build/drift/out/patches
	@if diff -r tangled build/drift/out >build/drift/diff.txt; then \
		echo "drift: tangled/ is what the book makes (byte for byte)"; \
	else \
		echo "drift: tangled/ differs from what the book makes:" >&2; \
		head -20 build/drift/diff.txt >&2; \
		echo "drift: run 'make tangle' and commit tangled/" >&2; exit 1; \
	fi

checkpatch: deps
	@$(PY) tools/checkpatch.py tangled/patches

kernel: tangle
	@$(PY) tools/kernel.py apply tangled/patches
	@$(PY) tools/kernel.py build test

conform: kernel
	@$(PY) conformance/host/conform.py

# The debug variant (KASAN, UBSAN, lockdep, kmemleak); make check builds
# and boots it too.
kernel-debug: kernel
	@$(PY) tools/kernel.py build debug

conform-debug: kernel-debug
	@$(PY) conformance/host/conform.py --variants test,debug

# Debian's production config with the series: test options off (fast), and
# the touched files compiled with it (slower; run before resolving).
prodconfig: deps
	@$(PY) tools/prodconfig.py check

prodcheck: deps
	@$(PY) tools/prodconfig.py check
	@$(PY) tools/prodconfig.py build

# The Jitter RNG and the DRBG as modules, loaded in the guest (a third
# kernel build, not part of make check).
modules-check: kernel
	@$(PY) tools/kernel.py build modules
	@$(PY) conformance/host/conform.py --variants modules --out build/modules-check

# The series' files and tests compiled for 32-bit x86.
i386check: kernel
	@$(PY) tools/prodconfig.py i386

# Every prefix of the series builds (a cold build plus one per patch).
bisect: tangle
	@$(PY) tools/bisect_series.py

# Deliberately broken builds of the series: each must fail some check.
teeth: kernel
	@$(PY) tools/teeth.py

host-tests: deps
	@$(PY) tools/host_tests.py

check: deps
	@$(PY) tools/check.py

# The book: HTML and PDF in build/book (tools/book.py); book-check renders
# it and writes build/book/book-checks.json (tools/book_check.py).
book: deps deps-book
	@$(PY) tools/book.py build

.PHONY: book-check
book-check: deps deps-book
	@$(PY) tools/book_check.py

# Side-by-side timings (tools/bench.py; not part of make check): writes
# build/bench/bench.{json,md}, which the book's performance appendix reads.
# BENCH_ARGS passes options, e.g. BENCH_ARGS="--reps 3 --no-workflow".
BENCH_ARGS ?=
bench: deps
	@$(PY) tools/bench.py $(BENCH_ARGS)

clean:
	rm -rf build

cache-clean:
	rm -rf "$(KCACHE)"
