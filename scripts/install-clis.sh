#!/usr/bin/env bash
# install-clis.sh: install the pinned real CLIs of scenarios/clis.txt, each into its
# own folder of the cache directory, reusing what is already installed.
#
# Usage: scripts/install-clis.sh [NAME...]     (default: all)
#
#   STEAD_CLI_CACHE  where to install (default ${XDG_CACHE_HOME:-~/.cache}/stead/clis)
#
# A CLI counts as installed when its folder holds a .installed stamp naming
# the same package spec; anything else is (re)installed. Prints the cache
# directory on its last line.
set -euo pipefail

cd "$(dirname "$0")/.."
cache=${STEAD_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stead/clis}
mkdir -p "$cache"

want=("$@")
selected() {
	[ ${#want[@]} -eq 0 ] && return 0
	local w
	for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done
	# A runtime one of them needs (the fourth column).
	for w in "${want[@]}"; do
		awk -v n="$w" -v r="$1" '$1 == n && $4 == r { found = 1 } END { exit !found }' scenarios/clis.txt && return 0
	done
	return 1
}

while read -r name spec bin _; do
	case "$name" in '' | '#'*) continue ;; esac
	selected "$name" || continue
	dir="$cache/$name"
	if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$spec" ] && [ -e "$dir/$bin" ]; then
		echo "$name: $spec already installed"
		continue
	fi
	echo "$name: installing $spec"
	rm -rf "$dir"
	mkdir -p "$dir"
	flags=(--no-audit --no-fund --no-save --loglevel=error --prefix "$dir")
	# Kimi Code's install script only renames a global shim; its runtime
	# (Node 22) is installed separately.
	[ "$name" = kimi ] && flags+=(--ignore-scripts --engine-strict=false)
	start=$(date +%s)
	echo '{"private":true}' >"$dir/package.json"
	npm install "${flags[@]}" "$spec" >"$dir/install.log" 2>&1 || {
		cat "$dir/install.log" >&2
		echo "$name: npm install $spec failed" >&2
		exit 1
	}
	[ -e "$dir/$bin" ] || { echo "$name: $dir/$bin missing after install" >&2; exit 1; }
	echo "$spec" >"$dir/.installed"
	echo "$name: installed in $(($(date +%s) - start)) s ($(du -sh "$dir" | cut -f1))"
done <scenarios/clis.txt

echo "$cache"
