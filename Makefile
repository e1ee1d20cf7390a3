# SPDX-License-Identifier: GPL-2.0-only
#
# The literate-drbg pipeline.  `make conform` is the main job, `make check`
# the tests; both install what is missing first.  Every target below is a
# verb of the harness package: `python3 -m harness VERB` (see README.md).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

PY := /usr/bin/python3
H := $(PY) -m harness
# ARCH=i386: the test kernel built for 32-bit x86 and booted with
# qemu-system-i386 (make kernel and make conform; a kernel build of its own,
# build/conformance-i386/ for the report).  Not part of make check.
ARCH ?= x86_64
ifeq ($(ARCH),i386)
VARIANT := i386
CONFORM_ARGS := --out build/conformance-i386
else ifeq ($(ARCH),x86_64)
VARIANT := test
# make conform on x86_64 takes boots kept from an earlier run with the same
# key (image, initramfs, command line, QEMU) and keeps those that pass:
# harness/stages/kept_boots.py.  FRESH=conform boots everything.
CONFORM_ARGS := --keep
else
$(error ARCH=$(ARCH): make conform knows x86_64 and i386)
endif
export KCACHE ?= $(HOME)/.cache/literate-drbg
ACCEL ?= tcg
BOOTS ?=
export ACCEL BOOTS
# CAVS .rsp directories for the cavs boot, colon-separated (default:
# vectors/cavs:vectors/extra); make conform VECTORS=DIR runs DIR's files.
VECTORS ?=
export VECTORS
# make check takes verdicts that are kept with the digest of their inputs
# when the digest is this tree's: the entropy record (evidence/entropy), and
# the last passing run of the Kconfig builds, the assessor, the harness's
# mutants and ACVP (build/check/), and each boot that passed with the same
# image, initramfs and command line (build/conformance/kept/, make conform
# too).  FRESH=entropy,acvp,kconfig,entropy-kat,mutants,conform (any of
# them) or FRESH=all runs them again.
FRESH ?=
export FRESH
# make mutants: MUTANTS=drbg,random,jitter (parts), MUTANT_IDS=id,... (a subset),
# MUTANTS_VARIANT=debug|modules (a stronger kernel for the test kernel's survivors),
# MUTANTS_MINUTES=N (stop judging after N minutes), MUTANTS_RESUME=1 (judge
# only what the record has not judged: a part run over several sittings),
# MUTANTS_FIRST=N (the first N mutants of each part), SHARD=i/N (one shard)
MUTANTS ?=
MUTANT_IDS ?=
MUTANTS_VARIANT ?=
MUTANTS_MINUTES ?=
MUTANTS_RESUME ?=
MUTANTS_FIRST ?=
export MUTANTS MUTANT_IDS MUTANTS_VARIANT MUTANTS_MINUTES MUTANTS_RESUME MUTANTS_FIRST

.PHONY: help deps deps-book lint tangle drift checkpatch checkers kernel conform \
	host-tests check book book-check bench clean cache-clean prodconfig prodcheck \
	kernel-debug conform-debug teeth mutants mutants-harness mutants-harness-gen bisect modules-check i386check \
	examples assess entropy-kat entropy acvp-registration acvp stress evidence pud \
	kconfig-matrix mutants-shards mutants-merge stress-shards shards-demo

help:
	@echo "make conform     tangle, build the kernel, boot it, write build/conformance/report.*"
	@echo "make check       lint, drift check, checkpatch, host tests, conform; ends with 'N passed, N failed'"
	@echo "make tangle      write tangled/ from the book"
	@echo "make kernel      apply tangled/patches to the cached tree and build the test kernel"
	@echo "make acvp        answer the ACVP vector sets under ACVP=DIR (default vectors/acvp)"
	@echo "make book        render the book (HTML and PDF) into build/book"
	@echo "make book-check  render the book and check it (links, chunks, browser, gaps)"
	@echo "make deps        install missing Debian packages (as root)"
	@echo "make clean       remove build/;  make cache-clean: remove the kernel cache $(KCACHE)"
	@echo "Every target runs a verb of '$(H)'; '$(H) --help' lists them all."

deps:
	@tools/deps.sh build

deps-book:
	@tools/deps.sh book

lint: deps
	@$(H) lint

# One notangle per output, then the series from the edit scripts; skipped
# when tangled/ is what the same sources and tools made (a stamp).
tangle: deps
	@$(H) tangle

# tangled/ must be exactly what the book makes (never uses the stamp).
drift: deps
	@$(H) drift

checkpatch: deps
	@$(H) checkpatch

# sparse (C=2), W=1, kernel-doc and coccicheck on the files the series
# touches: no warning that pristine 6.1 does not have (two trees of its own
# in the cache; a warm run with nothing changed builds nothing).
checkers: deps
	@$(H) checkers

kernel: tangle
	@$(H) kernel apply
	@$(H) kernel build $(VARIANT)

conform: kernel
	@$(H) conform --variants $(VARIANT) $(CONFORM_ARGS)

# The debug variant (KASAN, UBSAN, lockdep, kmemleak); make check builds
# and boots it too.
kernel-debug: kernel
	@$(H) kernel build debug

conform-debug: kernel-debug
	@$(H) conform --variants test,debug

# Debian's production config with the series: test options off (fast), and
# the touched files compiled with it (slower; run before resolving).
prodconfig: deps
	@$(H) prodconfig check

# The series' options at y, m and n: every combination Kconfig allows built
# and linked on a tinyconfig base, and randconfig (KCONFIG_SEED printed);
# a long run, kept by make evidence.  make check runs --short.
kconfig-matrix: deps tangle
	@$(H) kconfig-matrix $(if $(LIMIT),--limit $(LIMIT))

prodcheck: deps
	@$(H) prodconfig build

# The Jitter RNG and the DRBG as modules, loaded in the guest (a third
# kernel build, not part of make check).
modules-check: kernel
	@$(H) kernel build modules
	@$(H) conform --variants modules --out build/modules-check

# The series' files and tests compiled for 32-bit x86.
i386check: kernel
	@$(H) prodconfig i386

# Every prefix of the series builds (a cold build plus one per patch).
bisect: tangle
	@$(H) bisect

# Deliberately broken builds of the series: each must fail its oracle (not
# part of make check: four more builds and boots, about 10 minutes).
teeth: kernel
	@$(H) teeth

# The debug kernel at large figures (issue 20; not part of make check):
# seeded hostile calls, the DRBG life-cycle race, the FIPS and Jitter RNG
# failure boots, the modules removed and loaded again (the modules kernel);
# build/stress/report.json, which the book's hardening appendix reads.  STRESS_ARGS passes options, e.g.
# STRESS_ARGS="--calls 20000 --seed 7 --race-rounds 1000".
STRESS_ARGS ?=
stress: kernel-debug
	@$(H) kernel build modules
	@$(H) stress $(STRESS_ARGS)

# The mutation score of the series (harness/stages/kmutants_run.py; not part
# of make check): MUTANTS=drbg|random|jitter (default all three),
# MUTANT_IDS=id,... a subset; results in build/mutants/series.{json,md}.
mutants: kernel
	@$(H) mutants

# make mutants and make stress in SHARDS shards (default 2), dispatched by
# GNU parallel on this machine or over ssh (SHARD_SSH=host1,host2), then
# merged into build/mutants/series.json and build/stress/report.json:
# tools/shards.sh says how, and how a CI matrix does the same.
# make mutants SHARD=i/N runs one shard; make mutants-merge joins the
# shard files (python3 -m harness stress-merge, for make stress).
SHARDS ?= 2
SHARD ?=
export SHARD
stress-shards: deps
	@tools/deps.sh shards
	@tools/shards.sh $(SHARDS) stress $(if $(STRESS_ARGS),STRESS_ARGS="$(STRESS_ARGS)")

mutants-shards: deps
	@tools/deps.sh shards
	@tools/shards.sh $(SHARDS) mutants $(if $(MUTANTS),MUTANTS=$(MUTANTS)) \
		$(if $(MUTANT_IDS),MUTANT_IDS=$(MUTANT_IDS)) \
		$(if $(MUTANTS_FIRST),MUTANTS_FIRST=$(MUTANTS_FIRST)) \
		$(if $(MUTANTS_VARIANT),MUTANTS_VARIANT=$(MUTANTS_VARIANT))

mutants-merge:
	@$(H) mutants-merge

# The same make mutants run (SHARDS_DEMO, default MUTANTS=drbg
# MUTANTS_FIRST=6) on one machine and in two shards here, the merge
# compared verdict by verdict: build/mutants/compare.json, which make
# evidence keeps (tools/shards-demo.sh).
shards-demo: deps
	@tools/deps.sh shards
	@tools/shards-demo.sh

# The reports of make stress, make conform ARCH=i386 and make mutants kept
# in evidence/ (committed), each only if made on this tree's inputs
# (harness/base/evidence.py); the book reads build/ first, then evidence/.
EVIDENCE ?=
evidence: deps
	@$(H) evidence $(if $(EVIDENCE),--only "$(EVIDENCE)")

# ACVP (chapter "ACVP"): the registration derived from the patched kernel
# (build/acvp/registration.json), and the vector sets under ACVP=DIR
# (default vectors/acvp) answered by the test kernel: build/acvp/<set>/
# response.json, validation.json where the set has expected results.
ACVP ?=
acvp-registration: tangle
	@$(H) acvp-registration

acvp: kernel
	@$(H) acvp $(if $(ACVP),--dir "$(ACVP)")

# The mutation score of the harness's verdict code (host only).
mutants-harness: deps
	@$(H) mutants-harness

# The generated mutants of the harness's verdict code (hmutants.py: the
# operators of make mutants) against the whole host suite, and every
# survivor's fate (harness/stages/hmutants_fates.txt); a long run, kept by
# make evidence.  Results: build/mutants/generated.{json,md}.
mutants-harness-gen: deps deps-book
	@$(H) mutants-harness --generated $(HMUTANTS_ARGS)

host-tests: deps deps-book
	@$(H) host-tests

check: deps deps-book
	@$(H) check

# The SP 800-90B assessor (tangled/sp800-90b/assess.c): on any sample file
# (make assess DATA=FILE [RESTART=FILE HI=x] [BITS=n] [SHORT=1 for fewer than
# 1,000,000 samples]), and on NIST's eight
# reference files against NIST's own results (make entropy-kat).
DATA ?=
RESTART ?=
HI ?=
BITS ?=
SHORT ?=
assess: deps
	@test -n "$(DATA)" || { echo "make assess: give DATA=FILE (one sample per byte)" >&2; exit 2; }
	@$(H) assess --data "$(DATA)" $(if $(RESTART),--restart "$(RESTART)") \
		$(if $(HI),--hi $(HI)) $(if $(BITS),--bits $(BITS)) $(if $(SHORT),--allow-short)

entropy-kat: deps
	@$(H) entropy-kat

# Raw noise of the Jitter RNG (ours in user space and in the test kernel,
# 6.1's in user space), SP 800-90B assessed; writes build/entropy/ (see
# harness/stages/entropy.py).  ACCEL=kvm for a lab's own hardware.
entropy: kernel
	@$(H) entropy --accel $(ACCEL)

# The Public Use Document (HTML and PDF) from the code and the entropy run
# (build/entropy/, else the one recorded in evidence/entropy/).
pud: deps deps-book
	@$(H) pud

# The book: HTML and PDF in build/book; book-check renders it and writes
# build/book/book-checks.json.  The worked example's data and the
# assessor's comparison with NIST are computed first (the book itself runs
# no model), and the series' line map comes from the tangle.
examples: deps
	@$(H) examples

book: deps deps-book tangle examples entropy-kat
	@$(H) book

book-check: deps deps-book tangle examples entropy-kat
	@$(H) book-check

# Side-by-side timings (not part of make check): writes
# build/bench/bench.{json,md}, which the book's performance appendix reads.
# BENCH_ARGS passes options, e.g. BENCH_ARGS="--reps 3 --no-workflow".
BENCH_ARGS ?=
bench: deps
	@$(H) bench $(BENCH_ARGS)

clean:
	rm -rf build

cache-clean:
	rm -rf "$(KCACHE)"
