#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A long run in N shards, dispatched by GNU parallel (issue 39).
#
#   tools/shards.sh N mutants [VAR=value ...]   e.g. tools/shards.sh 2 mutants MUTANTS=drbg
#   tools/shards.sh N stress [VAR=value ...]
#
# mutants: shard i is `make mutants SHARD=i/N VAR=value ...`, which judges
# every N-th mutant of the selection (harness/stages/kmutants_shard.py)
# and writes build/mutants/shard-<i>-of-<N>.json; `python3 -m harness
# mutants-merge` joins them into build/mutants/series.json.
# stress: shard i is `make stress BOOTS=<its boots>` (the boots dealt by
# their timeouts: python3 -m harness stress-merge --boots-of i/N), whose
# build/stress/report.json comes back as build/stress/shard-<i>-of-<N>.json;
# `python3 -m harness stress-merge` joins them into build/stress/report.json.
# Each merge checks that its files are every shard of one run on the same
# inputs, and the merged record is the one a single machine writes.
#
# On this machine (the default): shard i runs in a clone of HEAD,
# build/shards/<i>/repo, with a kernel cache of its own,
# build/shards/<i>/cache (a cold import and build the first time, warm
# after), as if on a machine of its own; its log is build/shards/<i>/log.
#
# Over ssh: SHARD_SSH=host1,host2,... hands the shards to those hosts
# (GNU parallel's --sshlogin, one shard at a time per host).  Every host
# must have this repository at the same commit in SHARD_REMOTE_DIR (by
# default the path of this tree), its packages (make deps) and its own
# kernel cache; the shard files come back with parallel's --return.
#
# A CI matrix does the same without this script: one job per i, each
# running the shard's command on a clean clone and keeping its shard file
# as an artifact; a last job puts the N artifacts where the merge looks
# for them and runs the merge.
#
# SHARD_COMPARE=FILE: after the merge, compare with a single machine's
# record of the same inputs (exit 1 when a verdict differs).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)

n=${1:-}
run=${2:-}
if ! [[ "$n" =~ ^[1-9][0-9]*$ ]] || { [ "$run" != mutants ] && [ "$run" != stress ]; }; then
	echo "shards: usage: tools/shards.sh N mutants|stress [VAR=value ...]" >&2
	exit 2
fi
shift 2
for v in "$@"; do
	if ! [[ "$v" =~ ^[A-Z_]+=.*$ ]]; then
		echo "shards: '$v' is not VAR=value (make variables for make mutants)" >&2
		exit 2
	fi
done
if ! command -v parallel >/dev/null; then
	echo "shards: GNU parallel is missing: run 'make deps' or 'apt-get install parallel'" >&2
	exit 2
fi
if [ -n "$(git status --porcelain -- tangled harness conformance tests)" ]; then
	echo "shards: warning: uncommitted changes to inputs; each shard runs HEAD" \
		"$(git rev-parse --short HEAD)" >&2
fi
# The command of shard {} (GNU parallel's replacement string), and where
# its record is left and collected; the variables quoted for the shell
# that runs it.
vars=""
if [ $# -gt 0 ]; then
	vars=$(printf ' %q' "$@")
fi
if [ "$run" = mutants ]; then
	cmd="make mutants SHARD={}/$n$vars"
	out="build/mutants/shard-{}-of-$n.json"
	left=$out
else
	cmd="make stress BOOTS=\$(/usr/bin/python3 -m harness stress-merge --boots-of {}/$n)$vars"
	out="build/stress/shard-{}-of-$n.json"
	left=build/stress/report.json
fi
mkdir -p "build/$run"
rm -f "build/$run"/shard-*-of-*.json
start=$(date +%s)

if [ -n "${SHARD_SSH:-}" ]; then
	remote=${SHARD_REMOTE_DIR:-$top}
	seq 1 "$n" | parallel --jobs 1 --sshlogin "$SHARD_SSH" --line-buffer \
		--tagstring 'shard {}' --return "$remote/$out" --cleanup=no \
		"cd $remote && { $cmd; rc=\$?; cp $left $out; exit \$rc; }" ||
		echo "shards: $? shard(s) exited non-zero (a survivor, a failed check, or a failure)"
else
	head=$(git rev-parse HEAD)
	for i in $(seq 1 "$n"); do
		d=build/shards/$i
		mkdir -p "$d"
		if [ -d "$d/repo/.git" ]; then
			git -C "$d/repo" fetch -q "$top" HEAD
			git -C "$d/repo" checkout -q --force "$head"
		else
			git clone -q --no-checkout "$top" "$d/repo"
			git -C "$d/repo" checkout -q "$head"
		fi
	done
	echo "shards: $n shards of make $run $* on this machine (build/shards/<i>)"
	seq 1 "$n" | parallel --jobs "$n" --line-buffer --tagstring 'shard {}' \
		"cd build/shards/{}/repo && export KCACHE=$top/build/shards/{}/cache && \
		 { $cmd; } > ../log 2>&1; rc=\$?; tail -n 3 ../log; \
		 cp $left $top/$out 2>/dev/null; exit \$rc" ||
		echo "shards: $? shard(s) exited non-zero (a survivor, a failed check, or a" \
			"failure: build/shards/<i>/log)"
fi
echo "shards: all $n ended in $(($(date +%s) - start)) s (wall time); merging"
merge=(/usr/bin/python3 -m harness "$run-merge")
if [ -n "${SHARD_COMPARE:-}" ]; then
	merge+=(--compare "$SHARD_COMPARE")
fi
"${merge[@]}"
