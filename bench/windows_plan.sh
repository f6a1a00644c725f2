#!/usr/bin/env bash
# Windows at scale (bench/run.sh runs it; `bench/windows_plan.sh SLUICE OUT`
# alone works too): `sluice plan` of 20 hourly models over 5 years (876,000
# windows, recorded as applied but for each model's newest day), beside the
# raw engine reading the same rows; and the state rows of a project
# restated 12 times in full, fixed and flexible.
set -uo pipefail

sluice=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
duckdb=$(cd "$root/${DEPS:-.deps}/duckdb" && pwd)
runs=${BENCH_RUNS:-5}
dir=$out/windows_plan

ns() { date +%s%N; }
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
secs() { awk -v n="$1" 'BEGIN { printf "%.2f", n / 1e9 }'; }

# gen DIR NMODELS START END [FLEX]: a chain of hourly models, each gated on
# the one before it (encapsulate)
gen() {
	local d=$1 n=$2 start=$3 end=$4 flex=${5:-} i up from
	rm -rf "$d"
	mkdir -p "$d/models/s"
	echo "name: windows_bench" >"$d/sluice.yml"
	for ((i = 1; i <= n; i++)); do
		up="" from=raw.ev
		((i > 1)) && up="@upstream s.m$((i - 1)) contract=encapsulate" from=s.m$((i - 1))
		printf "@config materialized=incremental, temporality=temporal, time_column=ts, grain=1h,\n        start='%s', end='%s'%s\n%s\nSELECT ts FROM %s WHERE ts >= {since} AND ts < {until}\n" \
			"$start" "$end" "${flex:+, flexibility=flex}" "$up" "$from" >"$d/models/s/m$i.sql"
	done
	(cd "$d" && "$sluice" sql "CREATE SCHEMA raw; CREATE TABLE raw.ev (ts TIMESTAMP)" >/dev/null)
}

cc -std=c11 -O2 -Wall -Wextra -I"$duckdb/include" "$root/bench/raw_windows.c" -L"$duckdb/lib" \
	-Wl,-rpath,"$duckdb/lib" -lduckdb -o "$out/raw_windows" || exit 1

gen "$dir" 20 2021-01-01 2026-01-01
cd "$dir" || exit 1
# one window each records the models; the rest of the state is written as
# a run of 5 years would have left it
SLUICE_NOW='2021-01-01 01:00' "$sluice" run >/dev/null || exit 1
"$sluice" sql "DELETE FROM _sluice.windows; INSERT INTO _sluice.windows SELECT 's.m' || m, '',
	TIMESTAMP '2021-01-01' + INTERVAL (h) HOUR, TIMESTAMP '2021-01-01' + INTERVAL (h + 1) HOUR,
	'applied', TIMESTAMP '2026-01-01', NULL, NULL, 1, NULL, '1h'
	FROM range(1, 21) a(m), range(0, 43824 - 24) b(h)" >/dev/null || exit 1
windows=$("$sluice" sql "SELECT count(*) FROM _sluice.windows" | tail -n 1)
plan=() raw=()
for ((i = 0; i <= runs; i++)); do
	t0=$(ns)
	SLUICE_NOW='2026-01-01' "$sluice" plan >"$out/last.log" 2>&1 || { cat "$out/last.log"; exit 1; }
	t1=$(ns)
	"$out/raw_windows" warehouse.duckdb >/dev/null || exit 1
	t2=$(ns)
	((i)) && plan+=($((t1 - t0))) raw+=($((t2 - t1)))
done
grep -q "Planned in .*: 20 to build" "$out/last.log" || { cat "$out/last.log"; exit 1; }
grep -q "build (24 windows due)" "$out/last.log" || { cat "$out/last.log"; exit 1; }
echo "   sluice plan runs (s): $(for t in "${plan[@]}"; do printf '%s ' "$(secs "$t")"; done)"
mp=$(median "${plan[@]}") mr=$(median "${raw[@]}")
echo "plan of 20 hourly models over 5 years ($windows windows): $(secs "$mp") s (target <= 2 s) vs the DuckDB C API reading the same rows $(secs "$mr") s = $(awk -v a="$mp" -v b="$mr" 'BEGIN { printf "%.2f", a / b }')x$( ((mp <= 2000000000)) || echo "  MISSED")"

# 12 full restatements of two days of 20 hourly models, fixed and flexible
declare -A rows
cd "$out" || exit 1
for kind in fixed flex; do
	gen "$out/windows_restate_$kind" 20 2026-01-01 2026-01-03 "$([[ $kind == flex ]] && echo 1)"
	cd "$out/windows_restate_$kind" || exit 1
	SLUICE_NOW='2026-02-01' "$sluice" run >/dev/null || exit 1
	for ((i = 1; i <= 12; i++)); do
		SLUICE_NOW='2026-02-01' "$sluice" run --mode torch \
			$([[ $kind == flex ]] && echo "--chunk $((i % 5 + 1))h") >/dev/null 2>&1 || exit 1
	done
	rows[$kind]=$("$sluice" sql "SELECT count(*) FROM _sluice.windows WHERE since IS NOT NULL" | tail -n 1)
	cd "$out" || exit 1
done
echo "state rows after 12 full restatements of 20 hourly models over two days: fixed ${rows[fixed]} (target 960: one per window), flexible ${rows[flex]} (target 20: one per island)$( ((rows[fixed] == 960 && rows[flex] == 20)) || echo "  MISSED")"
