#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make shards-demo: the same make mutants run on one machine and in two
# shards on this machine, the merge compared with it verdict by verdict
# (issue 39).  SHARDS_DEMO="MUTANTS=drbg MUTANTS_FIRST=6" by default.
#
# Everything runs in a clone of HEAD, build/shards-demo/repo, so that this
# tree's build/mutants/series.json is left alone:
#   1. one machine: make mutants $SHARDS_DEMO there, with this tree's
#      kernel cache ($KCACHE), timed; its series.json is kept as single.json;
#   2. tools/shards.sh 2 mutants $SHARDS_DEMO there (each shard in a clone
#      of its own with a kernel cache of its own, GNU parallel starting
#      both), merged with --compare single.json;
#   3. the comparison, build/mutants/compare.json of the clone, is copied
#      to this tree's build/mutants/compare.json (make evidence keeps it).
# Exits 1 when a verdict differs.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
read -r -a vars <<<"${SHARDS_DEMO:-MUTANTS=drbg MUTANTS_FIRST=6}"
if [ -n "$(git status --porcelain -- tangled harness conformance tests tools Makefile)" ]; then
	echo "shards-demo: commit first: the run is of HEAD, and its record must be" \
		"of this tree's inputs" >&2
	exit 2
fi
demo=build/shards-demo
mkdir -p "$demo"
rm -rf "$demo/repo"
git clone -q "$top" "$demo/repo"
git -C "$demo/repo" checkout -q --detach "$(git rev-parse HEAD)"
cd "$demo/repo"
echo "shards-demo: one machine: make mutants ${vars[*]}"
t0=$(date +%s)
make mutants "${vars[@]}" >../single.log 2>&1 || true
tail -n 4 ../single.log
if [ ! -f build/mutants/series.json ]; then
	echo "shards-demo: the one-machine run wrote no record: see $demo/single.log" >&2
	exit 1
fi
cp build/mutants/series.json ../single.json
echo "shards-demo: one machine took $(($(date +%s) - t0)) s"
rm -f build/mutants/series.json build/mutants/series.md
SHARD_COMPARE=$top/$demo/single.json tools/shards.sh 2 mutants "${vars[@]}" && rc=0 || rc=$?
mkdir -p "$top/build/mutants"
cp build/mutants/compare.json "$top/build/mutants/compare.json"
echo "shards-demo: build/mutants/compare.json"
exit $rc
