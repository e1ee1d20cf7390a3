#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what the pipeline needs from Debian, and only what is missing.
#
#   tools/deps.sh [build|book|shards|all]
#
# build: tangling, the kernel build, QEMU, the host-side tests and the
#        static checkers (sparse, coccinelle: make checkers; ocaml because
#        two of 6.1's coccinelle scripts are written in OCaml).
# book:  the rendered book (pandoc, LaTeX; Chromium, chromedriver and
#        Selenium for the browser check, which drives it through WebDriver).
# The kernel source is pinned to the version in tangle.conf; when the
# archive no longer offers it, the script says so and installs nothing
# else in its place.
set -euo pipefail
cd "$(dirname "$0")/.."

group=${1:-build}
pin=$(awk '$1 == "base" { print $3 }' tangle.conf)
pkg=$(awk '$1 == "base" { print $2 }' tangle.conf)

build_pkgs=(
	build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils lz4 kmod
	git python3 python3-ply python3-git python3-cryptography python3-numpy
	noweb qemu-system-x86 qemu-system-data qemu-user gcc-multilib
	sparse coccinelle ocaml libkcapi-dev
)
# shards: GNU parallel, which dispatches make mutants' shards (tools/shards.sh).
shard_pkgs=(parallel)
book_pkgs=(
	pandoc texlive-latex-recommended texlive-latex-extra
	texlive-fonts-recommended lmodern chromium python3-matplotlib
	poppler-utils chromium-driver python3-selenium
)

case "$group" in
build) want=("${build_pkgs[@]}") ;;
book) want=("${book_pkgs[@]}") ;;
shards) want=("${shard_pkgs[@]}") ;;
all) want=("${build_pkgs[@]}" "${book_pkgs[@]}") ;;
*) echo "deps: unknown group '$group' (build, book, shards, all)" >&2; exit 2 ;;
esac

# One dpkg-query for the whole list: one per package took 0.45 s of every
# make (the one-chunk edit's path runs this first).
declare -A ok=()
while read -r name want_ status; do
	[ "$want_ $status" = "install ok installed" ] && ok[$name]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${want[@]}" 2>/dev/null || true)

missing=()
for p in "${want[@]}"; do
	[ -n "${ok[$p]:-}" ] || missing+=("$p")
done

pinned=()
if [ "$group" = build ] || [ "$group" = all ]; then
	have=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
	if [ "$have" != "$pin" ]; then
		pinned=("$pkg=$pin" "linux-config-6.1=$pin")
	fi
fi

if [ ${#missing[@]} -eq 0 ] && [ ${#pinned[@]} -eq 0 ]; then
	echo "deps ($group): all present"
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	sudo=sudo
	command -v sudo >/dev/null || {
		echo "deps: need root to install: ${missing[*]} ${pinned[*]}" >&2
		exit 1
	}
else
	sudo=
fi

echo "deps ($group): installing ${missing[*]} ${pinned[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null || echo "deps: apt-get update failed; trying the old index" >&2

if [ ${#pinned[@]} -gt 0 ]; then
	if ! apt-cache madison "$pkg" | awk '{ print $3 }' | grep -qx "$pin"; then
		have=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo none)
		echo "deps: the archive no longer offers $pkg=$pin (the pin in tangle.conf);" \
			"installed: $have.  make kernel will try the installed version;" \
			"make tangle needs the pin (move it in a commit of its own)." >&2
		pinned=()
	fi
fi

$sudo apt-get install -y -q --no-install-recommends --allow-downgrades \
	"${missing[@]}" "${pinned[@]}" >/tmp/literate-drbg-apt.log 2>&1 || {
	echo "deps: apt-get install failed; last lines of /tmp/literate-drbg-apt.log:" >&2
	tail -5 /tmp/literate-drbg-apt.log >&2
	exit 1
}
echo "deps ($group): done"
