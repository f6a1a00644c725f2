#!/usr/bin/env bash
# No source file calls, through any chain of calls, back into itself: each
# object file's defined and undefined symbols (nm) give an edge from the
# file that uses a symbol to the file that defines it, and every set of
# files that reach each other is printed with the symbols of each edge
# between them (the calls that close the cycle), and fails. Hand a
# function down (a pointer, as the server's command hook is) where the
# lower file must call the upper one.
#   tests/checks/call_cycles.sh [BUILD_DIR]     default build/release
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/release}
# the objects of the sources there are: a build may hold stale ones of
# files moved or deleted since
objs=()
for c in "$root"/src/*.c "$root"/src/*/*.c; do
	o=$build/${c#"$root"/}
	o=${o%.c}.o
	[[ -f $o ]] || { echo "$o: not built (make in $root first)"; exit 1; }
	objs+=("$o")
done

# "FILE D SYMBOL" and "FILE U SYMBOL", FILE as src/dir/name.c
for o in "${objs[@]}"; do
	f=${o#"$build"/}
	nm "$o" | awk -v f="${f%.o}.c" '
		NF == 3 && $2 ~ /^[TDBRCGS]$/ { print f, "D", $3 }
		NF == 2 && $1 == "U" { print f, "U", $2 }'
done | awk '
	$2 == "D" { def[$3] = $1; next }
	{ use[++n] = $1; sym[n] = $3 }
	END {
		# edges: from -> to, with the symbols that make them
		for (i = 1; i <= n; i++) {
			to = def[sym[i]]
			if (to == "" || to == use[i])
				continue
			k = use[i] SUBSEP to
			if (k in why) {
				why[k] = why[k] ", " sym[i]
				continue
			}
			why[k] = sym[i]
			out[use[i]] = out[use[i]] " " to
			files[use[i]] = 1
			files[to] = 1
		}
		# what each file reaches (breadth first; a few hundred files)
		for (v in files) {
			head = 0
			tail = 0
			queue[tail++] = v
			while (head < tail) {
				u = queue[head++]
				m = split(out[u], next_, " ")
				for (j = 1; j <= m; j++)
					if (!((v, next_[j]) in seen)) {
						seen[v, next_[j]] = 1
						queue[tail++] = next_[j]
					}
			}
		}
		# a cycle is a set of files that reach each other, named by its
		# first file in sort order
		bad = 0
		for (v in files) {
			if (!((v, v) in seen))
				continue
			first = v
			for (w in files)
				if ((v, w) in seen && (w, v) in seen && w < first)
					first = w
			member[first] = member[first] " " v
		}
		nc = 0
		for (c in member)
			firsts[++nc] = c
		sort(firsts, nc)
		for (k = 1; k <= nc; k++) {
			bad = 1
			m = split(member[firsts[k]], ms, " ")
			sort(ms, m)
			printf "call cycle between %d files:", m
			for (i = 1; i <= m; i++)
				printf " %s", ms[i]
			printf "\n"
			for (i = 1; i <= m; i++)
				for (j = 1; j <= m; j++)
					if ((ms[i], ms[j]) in why)
						printf "  %s -> %s: %s\n", ms[i], ms[j], why[ms[i], ms[j]]
		}
		exit bad
	}
	function sort(a, n,    i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
	}'
