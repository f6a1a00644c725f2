#!/usr/bin/env bash
# sluice benchmarks (`make bench` runs `bench/run.sh ./sluice`). Prints each
# figure next to its target from DESIGN.md §11, with MISSED when it is not
# met. Missing a target does not fail the script: benchmarks are not tests.
# It fails only when a benchmark cannot run (a build or a command failed).
#
# Needs only bash, coreutils, cc and the DuckDB C library in .deps/duckdb;
# the PostgreSQL benchmarks also need the PostgreSQL 15 server, psql and
# libpq's headers (scripts/bootstrap.sh installs them), and start a
# throwaway server of their own (tests/pg_server.sh), stopped on exit; the
# postgres_cdc ones also pg_recvlogical and build/release/bench/cdc_latency
# (make bench builds it).
# Everything it writes goes to bench/out/ (git-ignored).
#
#   bench/run.sh [SLUICE]          SLUICE defaults to ./sluice
#
# Environment knobs, for a quick try (the defaults are the benchmark):
#   BENCH_ONLY=plan|lineage|chain|replay|windows|live|layout|ui|cdc|ivm|ingest|kafka
#                           run one benchmark (ui: in chromium, through
#                           playwright-core, which bootstrap.sh installs)
#   BENCH_UI_SECONDS=20 BENCH_UI_RATE=200
#                           the UI's event benchmark: seconds, webhook events/s
#   BENCH_ONLY=pg|pg-chain|pg-ingest|pg-live|pg-ivm
#                           the PostgreSQL benchmarks (all four, or one)
#   BENCH_RUNS=5            counted runs per command (one warm-up run first;
#                           the DAG layout, timed in one process, at least 11)
#   BENCH_MODELS=2000       models in the generated project
#   BENCH_ROWS=5000000      rows in raw.events for the chain
#   BENCH_REPLAY_ROWS=10000000
#                           landing rows the replay rebuilds its 3 models from
#   BENCH_CDC_ROWS=10000000 BENCH_CDC_EVENTS=1000000
#   BENCH_CDC_BATCHES="10000 50000 200000"
#                           the CDC model's rows, the change events, the batch
#                           sizes they are applied in ("" for none)
#   BENCH_CDC_STREAM_SECONDS=30 BENCH_CDC_RATE=25000
#                           the CDC stream: seconds a step (0: no stream), the
#                           rate its search starts from
#   BENCH_KAFKA_MESSAGES=2000000
#                           messages of the Kafka landing (64 partitions),
#                           into DuckDB and into PostgreSQL
#   BENCH_IVM_ROWS=10000000 BENCH_IVM_BATCHES=25 BENCH_IVM_BATCH=1000
#   BENCH_IVM_REBUILDS=5 BENCH_IVM_CROSSOVER=30
#                           maintained aggregates (DuckDB and PostgreSQL): the
#                           orders, the counted batches and their events, the
#                           rebuilds timed among them, the crossover batch in
#                           percent of the orders (0: none)
#   BENCH_INGEST_ONE_REQUESTS=2000 BENCH_INGEST_REQUESTS=100000
#   BENCH_INGEST_CONNS="64 256" BENCH_INGEST_NDJSON_EVENTS=300000
#   BENCH_INGEST_NDJSON_CONNS=32 BENCH_LIVE_SECONDS=10
#                           ingest: requests over one connection, requests per
#                           point over CONNS connections, NDJSON events, seconds
#                           of the live chain (and of its lag behind ingest)
#   BENCH_INGEST_FLUSH=5ms  ingest with that ingest.flush_interval (a linger)
#                           instead of the default
#   BENCH_PG_ROWS=1000000   rows in raw.events for the PostgreSQL chain (it
#                           also takes BENCH_RUNS)
#   BENCH_PG_ROUNDS=3       rounds of the PostgreSQL ingest and live points,
#                           sluice then libpq alone in each; medians printed
#   BENCH_PG_INGEST_ONE_REQUESTS=1000 BENCH_PG_INGEST_REQUESTS=30000
#   BENCH_PG_INGEST_NDJSON_EVENTS=200000
#                           PostgreSQL ingest, per round: requests over one
#                           connection, over 64, NDJSON events (over
#                           BENCH_INGEST_NDJSON_CONNS; BENCH_INGEST_FLUSH too)
#   BENCH_PG_LIVE_SECONDS=10
#                           seconds of the PostgreSQL live chain a round (at
#                           BENCH_LIVE_RATE)
#   BENCH_ONLY=pgcdc|pgcdc-land|pgcdc-latency
#                           the postgres_cdc consumer's benchmarks (both, or one)
#   BENCH_PGCDC_ROUNDS=3 BENCH_PGCDC_CHANGES=200000
#   BENCH_PGCDC_SIZES="1, 2, 5, 10, 20, 50, 100, 200, 500, 1000" BENCH_PGCDC_LARGE=1
#                           landing rate: rounds, changes, the transaction
#                           sizes they cycle through, and (0: not) the point
#                           in transactions of 1000 for scale
#   BENCH_PGCDC_LATENCY_SECONDS=20 BENCH_PGCDC_RATE=10000 BENCH_PGCDC_TXN=100
#   BENCH_PGCDC_LATENCY_WAREHOUSES=duckdb BENCH_PGCDC_SCALE_TXN=1000
#   BENCH_PGCDC_SCALE_SECONDS=10
#                           latency: seconds, changes/s, changes a transaction,
#                           the warehouses of the sluice cdc runs ("duckdb
#                           postgres"), and the serve run for scale (0: none)
#   BENCH_PGCDC_SOURCE_DSN="host=H port=P user=U dbname=postgres"
#                           the postgres_cdc source databases on that server
#                           (key=value form; PostgreSQL 15 or later,
#                           wal_level=logical, a role that may make databases
#                           and replication slots; from the database it names
#                           it makes bench_pgcdc_* afresh) instead of a
#                           throwaway one on this machine: on another machine
#                           it measures the landing rate with the WAL sender
#                           off the consumer's cores, read the one way in
#   DEPS=.deps              where scripts/bootstrap.sh put DuckDB
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sluice_arg=${1:-./sluice}
case $sluice_arg in
/*) sluice=$sluice_arg ;;
*) sluice=$PWD/$sluice_arg ;;
esac
cd "$root" || exit 1

runs=${BENCH_RUNS:-5}
nmodels=${BENCH_MODELS:-2000}
rows=${BENCH_ROWS:-5000000}
only=${BENCH_ONLY:-}
duckdb=$(cd "${DEPS:-.deps}/duckdb" 2>/dev/null && pwd) || duckdb=
out=$root/bench/out
failed=0

die() {
	echo "bench: $*" >&2
	exit 1
}

[[ -x $sluice ]] || die "no sluice binary at $sluice_arg (run make first)"
[[ -n $duckdb && -f $duckdb/include/duckdb.h && -f $duckdb/lib/libduckdb.so ]] ||
	die "DuckDB not found in ${DEPS:-.deps}/duckdb (run scripts/bootstrap.sh)"
mkdir -p "$out"

# ---------------------------------------------------------------- helpers

# Runs a command with its output in $out/last.log; sets $elapsed (ns) and
# returns the command's exit status.
timed() {
	local t0 t1 rc
	t0=$(date +%s%N)
	"$@" >"$out/last.log" 2>&1
	rc=$?
	t1=$(date +%s%N)
	elapsed=$((t1 - t0))
	return $rc
}

# Median of integers (the mean of the two middle values for an even count).
median() {
	local sorted n
	mapfile -t sorted < <(printf '%s\n' "$@" | sort -n)
	n=${#sorted[@]}
	if ((n % 2)); then
		echo "${sorted[n / 2]}"
	else
		echo $(((sorted[n / 2 - 1] + sorted[n / 2]) / 2))
	fi
}

# Nanoseconds as seconds with two decimals: 1834000000 -> 1.83
secs() {
	local cs=$((($1 + 5000000) / 10000000))
	printf '%d.%02d' $((cs / 100)) $((cs % 100))
}

# a/b with two decimals: ratio 1834 1710 -> 1.07
ratio() {
	local r=$((($1 * 100 + $2 / 2) / $2))
	printf '%d.%02d' $((r / 100)) $((r % 100))
}

verdict() { # verdict OK_CONDITION(0/1)
	if (($1)); then echo ""; else echo "  MISSED"; fi
}

show_failure() {
	echo "  FAILED: $*"
	sed -e 's/^/    | /' "$out/last.log" | tail -n 20
	failed=1
}

echo "sluice benchmarks · $(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $runs runs each after 1 warm-up, medians"
echo "binary: $sluice_arg"
if command -v ldd >/dev/null && ldd "$sluice" 2>/dev/null | grep -q 'libasan\|libubsan'; then
	echo "warning: $sluice_arg is a sanitizer build; its figures say little (run 'make' for a release build)"
fi

# ------------------------------------------- 1. load + validate + plan

bench_plan() {
	local dir=$out/project_$nmodels cmd times i med_plan med_validate
	echo
	echo "1. load + validate + plan of a generated $nmodels-model project"
	bench/gen_project.sh "$dir" "$nmodels" || die "cannot generate the project"
	echo "   project: ${dir#"$root"/} ($(find "$dir/models" -name '*.sql' | wc -l) models in $(find "$dir/models" -mindepth 1 -type d | wc -l) schemas, 1 seed; no warehouse file)"

	for cmd in plan validate; do
		times=()
		for ((i = 0; i <= runs; i++)); do
			if ! timed "$sluice" "$cmd" --project "$dir"; then
				show_failure "sluice $cmd exited non-zero"
				return
			fi
			((i)) && times+=("$elapsed")
		done
		if [[ $cmd == plan ]] && ! grep -q "Planned in .*: $((nmodels + 1)) to build" "$out/last.log"; then
			show_failure "sluice plan did not plan all $((nmodels + 1)) models"
			return
		fi
		if [[ $cmd == validate ]] && ! grep -q "^ok: project .*, $nmodels models, 1 seed" "$out/last.log"; then
			show_failure "sluice validate did not load all $nmodels models"
			return
		fi
		if [[ $cmd == plan ]]; then
			med_plan=$(median "${times[@]}")
		else
			med_validate=$(median "${times[@]}")
		fi
		echo "   sluice $cmd runs (s): $(for t in "${times[@]}"; do printf '%s ' "$(secs "$t")"; done)"
	done
	echo "load+validate+plan, $nmodels models (sluice plan): $(secs "$med_plan") s (target <= 1 s)$(verdict $((med_plan <= 1000000000)))"
	echo "load+validate, $nmodels models (sluice validate): $(secs "$med_validate") s (target <= 1 s, a part of the above)$(verdict $((med_validate <= 1000000000)))"
}

# ----------------------------- lineage and change classification

# bench_lineage: on a generated project, column lineage of every column,
# one column's walk, sluice validate (which binds every query) and the
# plan, each three ways: cold (no .sluice/ caches), warm (nothing changed
# since the last command) and after one edit of a model that many others
# read; against `sluice ls` of the same project in the same run, the load
# every command pays (reading and hashing the files, the caches).
bench_lineage() {
	local dir=$out/lineage_$nmodels last edited=0 events=? i how cmd
	local -A med
	echo
	echo "== lineage, validate and plan of a generated $nmodels-model project: cold, warm, after one edit; against sluice ls (the load every command pays)"
	bench/gen_project.sh "$dir" "$nmodels" || die "cannot generate the project"
	printf -v last 's%02d.m%04d' $(((nmodels - 1) % 40)) $((nmodels - 1))
	# lineage_run HOW CMD: CMD's median over $runs runs after a warm-up,
	# prepared as HOW says (cold: no caches; edit: one model edited anew)
	lineage_run() {
		local times=() args
		case $2 in
		ls) args=(ls) ;;
		validate) args=(validate) ;;
		all) args=(lineage --openlineage) ;;
		one) args=(lineage "$last.v") ;;
		plan) args=(plan) ;;
		esac
		for ((i = 0; i <= runs; i++)); do
			case $1 in
			cold) rm -rf "$dir/.sluice" ;;
			edit)
				edited=$((edited + 1))
				sed -i "s/v \* 1\.[0-9]* + 1 AS v/v * 1.$((edited + 10)) + 1 AS v/" "$dir/models/s01/m0001.sql"
				;;
			esac
			timed "$sluice" "${args[@]}" --project "$dir" || {
				show_failure "sluice ${args[*]} exited non-zero"
				return 1
			}
			((i)) && times+=("$elapsed")
		done
		med[$1.$2]=$(median "${times[@]}")
		[[ $2 != all ]] || events=$(grep -c '"columnLineage"' "$out/last.log")
		echo "   sluice ${args[*]}, $1 (s): $(for t in "${times[@]}"; do printf '%s ' "$(secs "$t")"; done)"
	}
	for how in cold warm edit; do
		for cmd in ls validate all one; do
			lineage_run "$how" "$cmd" || return
		done
	done
	echo "   building the project once, for the plan ..."
	timed "$sluice" run --project "$dir" || {
		show_failure "sluice run exited non-zero"
		return
	}
	echo "   built in $(secs "$elapsed") s"
	for how in cold warm edit; do
		lineage_run "$how" plan || return
	done
	if ! grep -q 'definition changed: v changed (breaking)' "$out/last.log"; then
		show_failure "the plan did not read the edit as a change of column v"
		return
	fi
	echo "load (sluice ls): cold $(secs "${med[cold.ls]}") s, warm $(secs "${med[warm.ls]}") s, after one edit $(secs "${med[edit.ls]}") s"
	echo "column lineage of every column ($events events): cold $(secs "${med[cold.all]}") s (target <= 2 s)$(verdict $((med[cold.all] <= 2000000000))), after one edit $(secs "${med[edit.all]}") s (target <= 0.05 s)$(verdict $((med[edit.all] <= 50000000))) = $(ratio "${med[edit.all]}" "${med[edit.ls]}")x sluice ls"
	echo "one column's lineage: cold $(secs "${med[cold.one]}") s, after one edit $(secs "${med[edit.one]}") s (target <= 0.05 s)$(verdict $((med[edit.one] <= 50000000))) = $(ratio "${med[edit.one]}" "${med[edit.ls]}")x sluice ls"
	echo "load + validate with binding: cold $(secs "${med[cold.validate]}") s (target <= 1 s)$(verdict $((med[cold.validate] <= 1000000000))), warm $(secs "${med[warm.validate]}") s (target <= 0.15 s)$(verdict $((med[warm.validate] <= 150000000))) = $(ratio "${med[warm.validate]}" "${med[warm.ls]}")x sluice ls, after one edit $(secs "${med[edit.validate]}") s"
	echo "plan (change classification of the whole project): cold $(secs "${med[cold.plan]}") s, warm $(secs "${med[warm.plan]}") s (target <= 0.15 s)$(verdict $((med[warm.plan] <= 150000000))), after one edit $(secs "${med[edit.plan]}") s (target <= 1 s)$(verdict $((med[edit.plan] <= 1000000000))) = $(ratio "${med[edit.plan]}" "${med[edit.ls]}")x sluice ls"
}

# ----------------------------- 2. 3-model chain vs the DuckDB C API

write_chain_project() {
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir/models/silver" "$dir/models/gold"
	# the chain measures the framework around the models' SQL: the profile
	# each build takes of its table (a scan more, docs/models.md) is off
	cat >"$dir/sluice.yml" <<-'EOF'
		name: bench_chain
		warehouse: {type: duckdb, path: warehouse.duckdb}
		anomaly: {level: off}
	EOF
	cat >"$dir/models/silver/a.sql" <<-'EOF'
		-- projection with casts and a filter over the outside table raw.events
		@config materialized=table
		SELECT event_id, user_id, kind,
		       CAST(amount AS DECIMAL(12, 2)) AS amount,
		       CAST(ts AS DATE) AS day
		FROM raw.events
		WHERE kind <> 'test'
	EOF
	cat >"$dir/models/silver/b.sql" <<-'EOF'
		-- aggregation of silver.a per user and day
		@config materialized=table
		SELECT user_id, day, count(*) AS events,
		       count(*) FILTER (WHERE kind = 'buy') AS buys,
		       CAST(sum(amount) AS DECIMAL(18, 2)) AS amount
		FROM silver.a
		GROUP BY user_id, day
	EOF
	cat >"$dir/models/gold/c.sql" <<-'EOF'
		-- aggregation of silver.b per day
		@config materialized=table
		SELECT day, count(*) AS active_users, sum(events) AS events, sum(buys) AS buys,
		       sum(amount) AS revenue
		FROM silver.b
		GROUP BY day
	EOF
}

fresh_copy() { # fresh_copy PRISTINE TARGET: the same starting file for each run
	rm -f "$2" "$2.wal"
	cp "$1" "$2" && sync "$2"
}

# alternate SLUICE_RUN RAW_RUN: one warm-up pair then $runs counted ones,
# the order within a pair flipping every run so neither side always goes
# first; each *_RUN is a function that runs its side once (from a fresh
# copy) and leaves $elapsed, failing after show_failure. Fills s_times,
# r_times and pair_ratios (per mille).
alternate() {
	local i side order
	s_times=() r_times=() pair_ratios=()
	for ((i = 0; i <= runs; i++)); do
		order=(sluice raw)
		((i % 2)) && order=(raw sluice)
		for side in "${order[@]}"; do
			if [[ $side == sluice ]]; then
				"$1" || return 1
				((i)) && s_times+=("$elapsed")
			else
				"$2" || return 1
				((i)) && r_times+=("$elapsed")
			fi
		done
		((i)) && pair_ratios+=($(((s_times[i - 1] * 1000 + r_times[i - 1] / 2) / r_times[i - 1])))
	done
	return 0
}

# compared WHAT CHECKED RESULT: the runs alternate filled, the result both
# sides built, and the figure's line against the 1.10x target
compared() {
	local med_s med_r
	med_s=$(median "${s_times[@]}")
	med_r=$(median "${r_times[@]}")
	echo "   sluice runs (s):       $(for t in "${s_times[@]}"; do printf '%s ' "$(secs "$t")"; done)"
	echo "   DuckDB C API runs (s): $(for t in "${r_times[@]}"; do printf '%s ' "$(secs "$t")"; done)"
	echo "   median of the pairwise ratios: $(ratio "$(median "${pair_ratios[@]}")" 1000)x; $2: $3"
	echo "$1: sluice $(secs "$med_s") s vs DuckDB C API $(secs "$med_r") s = $(ratio "$med_s" "$med_r")x (target <= 1.10x)$(verdict $((med_s * 100 <= med_r * 110)))"
}

bench_chain() {
	local dir=$out/chain pristine=$out/chain_pristine.duckdb base=$out/baseline.duckdb
	local raw=$out/raw_chain sqldir=$out/chain_sql stamp m s_times=() r_times=()
	local check="SELECT count(*), sum(active_users), sum(events), sum(buys), sum(revenue) FROM gold.c"
	local pair_ratios=() want got

	echo
	echo "2. 3-model chain over $rows rows: sluice run --full-refresh vs the same SQL through the DuckDB C API"
	cc -std=c11 -O2 -Wall -Wextra -I"$duckdb/include" bench/raw_chain.c -L"$duckdb/lib" \
		-Wl,-rpath,"$duckdb/lib" -lduckdb -o "$raw" || die "cannot build bench/raw_chain.c"

	# raw.events is made once and kept while its recipe and DuckDB stay the same
	stamp="$rows $(cksum <bench/raw_chain.c) $(stat -c '%s %Y' "$duckdb/lib/libduckdb.so")"
	if [[ ! -f $pristine || "$(cat "$out/chain_pristine.stamp" 2>/dev/null)" != "$stamp" ]]; then
		echo "   creating raw.events ($rows rows) in ${pristine#"$root"/} ..."
		rm -f "$pristine" "$pristine.wal" "$out/chain_pristine.stamp"
		"$raw" init "$pristine" "$rows" || die "cannot create raw.events"
		echo "$stamp" >"$out/chain_pristine.stamp"
	fi

	write_chain_project "$dir"
	rm -rf "$sqldir" && mkdir -p "$sqldir"
	for m in silver.a silver.b gold.c; do
		"$sluice" compile "$m" --project "$dir" >"$sqldir/$m.sql" 2>"$out/last.log" || {
			show_failure "sluice compile $m failed"
			return
		}
	done
	echo "   models: silver.a (projection, CAST, filter) -> silver.b (GROUP BY user, day) -> gold.c (GROUP BY day); SQL from 'sluice compile' in ${sqldir#"$root"/}"

	chain_sluice() {
		fresh_copy "$pristine" "$dir/warehouse.duckdb" || die "cannot copy $pristine"
		timed "$sluice" run --full-refresh --project "$dir" &&
			grep -q "3 built, 0 failed" "$out/last.log" && return 0
		show_failure "sluice run did not build the 3 models"
		return 1
	}
	chain_raw() {
		fresh_copy "$pristine" "$base" || die "cannot copy $pristine"
		timed "$raw" run "$base" silver.a "$sqldir/silver.a.sql" \
			silver.b "$sqldir/silver.b.sql" gold.c "$sqldir/gold.c.sql" && return 0
		show_failure "raw_chain failed"
		return 1
	}
	alternate chain_sluice chain_raw || return

	# both sides must have built the same tables
	want=$("$raw" query "$base" "$check" 2>&1)
	got=$("$raw" query "$dir/warehouse.duckdb" "$check" 2>&1)
	if [[ $want != "$got" || -z $want ]]; then
		echo "  FAILED: the two sides built different gold.c: sluice '$got' vs raw '$want'"
		failed=1
		return
	fi

	compared "3-model chain over $rows rows" gold.c "$got"
}

# ------------------------------- replay of a 3-model closure vs the same SQL

write_replay_project() { # write_replay_project DIR
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir/models/silver" "$dir/models/gold" "$dir/models/platinum"
	cat >"$dir/sluice.yml" <<-'EOF'
		name: bench_replay
		warehouse: {type: duckdb, path: warehouse.duckdb}
		sources:
		  events:
		    kind: webhook
		    columns: {event_id: BIGINT, user_id: BIGINT, amount: BIGINT, ts: TIMESTAMP}
		    event_time: ts
		    boundary: timestamp
	EOF
	cat >"$dir/models/silver/events.sql" <<-'EOF'
		-- row for row, the anchor of what reads it
		@config materialized=incremental, live=true, incremental_strategy=append,
		        incremental_filter=WHERE _sluice_seq > {watermark}
		SELECT event_id, user_id, amount, ts, _sluice_seq FROM landing.events WHERE amount > 0
	EOF
	cat >"$dir/models/gold/by_user.sql" <<-'EOF'
		-- maintained by sluice (counted)
		@config materialized=incremental, live=true
		SELECT user_id, count(*) AS events, sum(amount) AS amount FROM silver.events GROUP BY user_id
	EOF
	cat >"$dir/models/platinum/summary.sql" <<-'EOF'
		@config materialized=incremental, live=true
		SELECT count(*) AS users, sum(events) AS events, sum(amount) AS amount FROM gold.by_user
	EOF
}

bench_replay() {
	local dir=$out/replay pristine=$out/replay_pristine.duckdb base=$out/replay_baseline.duckdb
	local raw=$out/raw_chain sqldir=$out/replay_sql stamp m s_times=() r_times=()
	local nrows=${BENCH_REPLAY_ROWS:-10000000}
	local check="SELECT users, events, amount FROM platinum.summary"
	local pair_ratios=() want got

	echo
	echo "== replay of $nrows landing rows through a 3-model closure: sluice replay vs the same SQL through the DuckDB C API"
	cc -std=c11 -O2 -Wall -Wextra -I"$duckdb/include" bench/raw_chain.c -L"$duckdb/lib" \
		-Wl,-rpath,"$duckdb/lib" -lduckdb -o "$raw" || die "cannot build bench/raw_chain.c"
	write_replay_project "$dir"
	# the landing history and the built models, made once per recipe
	stamp="$nrows $(cksum <"$dir/sluice.yml") $(cat "$dir"/models/*/*.sql | cksum) $(stat -c '%s %Y' "$sluice")"
	if [[ ! -f $pristine || "$(cat "$out/replay_pristine.stamp" 2>/dev/null)" != "$stamp" ]]; then
		echo "   landing $nrows events and building the models in ${pristine#"$root"/} ..."
		rm -f "$pristine" "$pristine.wal" "$out/replay_pristine.stamp" "$dir/warehouse.duckdb"*
		if ! timed "$sluice" run --project "$dir" ||
			! timed "$sluice" sql --project "$dir" "INSERT INTO landing.events (event_id, user_id, amount, ts)
				SELECT i, (i * 7919) % 100000, i % 1000, TIMESTAMP '2026-01-01' + to_seconds(i % 5184000)
				FROM range($nrows) AS t(i)" ||
			! timed "$sluice" live advance events --project "$dir" ||
			! timed "$sluice" live --once --project "$dir" ||
			! timed "$sluice" sql --project "$dir" "CHECKPOINT"; then
			show_failure "cannot make the replay's warehouse"
			return
		fi
		mv "$dir/warehouse.duckdb" "$pristine"
		echo "$stamp" >"$out/replay_pristine.stamp"
	fi
	rm -rf "$sqldir" && mkdir -p "$sqldir"
	# a build's query: what compile prints before its notes, or for a
	# model with an incremental filter (which every build applies, the
	# first one too) the query with it
	for m in silver.events gold.by_user platinum.summary; do
		"$sluice" compile "$m" --project "$dir" >"$sqldir/$m.all" 2>"$out/last.log" || {
			show_failure "sluice compile $m failed"
			return
		}
		if grep -q '^-- incremental runs read:$' "$sqldir/$m.all"; then
			sed '1,/^-- incremental runs read:$/d' "$sqldir/$m.all" >"$sqldir/$m.sql"
		else
			sed '/^$/q' "$sqldir/$m.all" >"$sqldir/$m.sql"
		fi
	done
	echo "   models: silver.events (row for row, filter) -> gold.by_user (GROUP BY, maintained) -> platinum.summary (aggregate, maintained); the raw side runs their queries from 'sluice compile' (silver's with its incremental filter) as CREATE OR REPLACE TABLE in one transaction"

	replay_sluice() {
		fresh_copy "$pristine" "$dir/warehouse.duckdb" || die "cannot copy $pristine"
		timed "$sluice" replay silver.events --project "$dir" &&
			grep -q "3 models rebuilt" "$out/last.log" && return 0
		show_failure "sluice replay did not rebuild the 3 models"
		return 1
	}
	replay_raw() {
		fresh_copy "$pristine" "$base" || die "cannot copy $pristine"
		timed "$raw" replace "$base" silver.events "$sqldir/silver.events.sql" \
			gold.by_user "$sqldir/gold.by_user.sql" \
			platinum.summary "$sqldir/platinum.summary.sql" && return 0
		show_failure "raw_chain failed"
		return 1
	}
	alternate replay_sluice replay_raw || return

	want=$("$raw" query "$base" "$check" 2>&1)
	got=$("$raw" query "$dir/warehouse.duckdb" "$check" 2>&1)
	if [[ $want != "$got" || -z $want ]]; then
		echo "  FAILED: the two sides built different platinum.summary: sluice '$got' vs raw '$want'"
		failed=1
		return
	fi
	compared "replay of $nrows landing rows through 3 models" platinum.summary "$got"
}

# ------------------------------------------------------------ live chain

write_live_project() { # write_live_project DIR
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir/models/bronze" "$dir/models/silver" "$dir/models/gold"
	cat >"$dir/sluice.yml" <<'YML'
name: livechain
sources:
  events: {kind: webhook, columns: {id: BIGINT, account: BIGINT, amount: BIGINT}}
live: {debounce: 50ms, max_latency: 100ms, min_interval: 0, poll_interval: 1s}
YML
	cat >"$dir/models/bronze/events.sql" <<'SQL'
@config materialized=incremental, live=true,
        incremental_filter=WHERE _sluice_seq > {watermark} AND id >= 0
SELECT id, account, amount, _sluice_seq FROM landing.events
SQL
	cat >"$dir/models/silver/events.sql" <<'SQL'
@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=id,
        incremental_filter=WHERE _sluice_seq > {watermark}
SELECT id, account, amount * 2 AS amount, _sluice_seq FROM bronze.events
SQL
	cat >"$dir/models/gold/accounts.sql" <<'SQL'
@config materialized=incremental, live=true, incremental_strategy=delete+insert, unique_key=account
SELECT account, count(*) AS events, sum(amount) AS amount, max(_sluice_seq) AS _sluice_seq
FROM silver.events
WHERE account IN (SELECT account FROM silver.events WHERE _sluice_seq > {watermark})
GROUP BY account
SQL
}

# build_program NAME: bench/NAME.c linked with sluice's library (the
# Makefile's rule, which make test builds too) into $out/NAME
build_program() {
	make -s -C "$root" "build/release/bench/$1" || die "cannot build $1"
	cp "$root/build/release/bench/$1" "$out/$1"
}

bench_live() {
	local dir=$out/live bin=$out/live_chain
	echo
	echo "== live chain: bronze -> silver -> gold while a writer lands events"
	build_program live_chain
	write_live_project "$dir"
	"$bin" "$dir" "${BENCH_LIVE_SECONDS:-10}" "${BENCH_LIVE_RATE:-10000}" 100 ||
		show_failure "live_chain failed"
}

# ------------------------------------------------------- windows gate

bench_windows() {
	echo
	echo "== upstream contract gates: 100000 windows against a 5-year hourly upstream (bench/windows_gate.c); the ENCAPSULATE ones against DuckDB answering them in one query"
	build_program windows_gate
	"$out/windows_gate" "$runs" || show_failure "windows_gate failed"
	echo
	echo "== windows at scale: sluice plan of 20 hourly models over 5 years beside the DuckDB C API reading the same rows; state rows after 12 restatements (bench/windows_plan.sh)"
	BENCH_RUNS=$runs bench/windows_plan.sh "$sluice" "$out" || show_failure "windows_plan failed"
}

# ------------------------------------------------------------ DAG layout

bench_layout() {
	echo
	echo "== DAG layout: generated project-shaped graphs of 2000 and 10000 nodes drawn in layers, as GET /api/dag serves them (bench/dag_layout.c)"
	build_program dag_layout
	echo "   load average $(cut -d' ' -f1-3 /proc/loadavg)"
	"$out/dag_layout" "$((runs < 11 ? 11 : runs))" || show_failure "dag_layout failed"
}

# ------------------------------------------------------------- web UI

# ui_serve DIR: sluice serve in DIR; sets $serve_pid and $ui_url
ui_serve() {
	local dir=$1
	serve_start "$dir" || {
		cp "$dir/serve.log" "$out/last.log"
		show_failure "sluice serve did not start"
		return 1
	}
	ui_url=$(sed -n 's/.*"url": "\([^"]*\)".*/\1/p' "$dir/.sluice/server.json")
}

# write_live_models DIR: a webhook source and 21 live models beside a
# generated project's: 20 merges of the source's events, one aggregate
write_live_models() {
	local dir=$1 i
	cat >>"$dir/sluice.yml" <<'YML'
sources:
  events: {kind: webhook, columns: {id: BIGINT, k: BIGINT, v: DOUBLE}}
live: {debounce: 50ms, max_latency: 200ms, min_interval: 0}
YML
	mkdir -p "$dir/models/live"
	for ((i = 0; i < 20; i++)); do
		printf '@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=id,\n        incremental_filter=WHERE _sluice_seq > {watermark}\nSELECT id, k, v, _sluice_seq FROM landing.events WHERE k %% 20 = %d\n' \
			"$i" >"$dir/models/live/l$(printf %02d "$i").sql"
	done
	printf '@config materialized=incremental, live=true\nSELECT k, count(*) AS n, sum(v) AS v FROM live.l00 GROUP BY k\n' \
		>"$dir/models/live/totals.sql"
}

# write_windows_project DIR: an hourly model of 100,000 windows (2015-01-01
# to 2026-05-29 16:00), built once so that its state exists
write_windows_project() {
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir/models/s"
	echo "name: windows_ui" >"$dir/sluice.yml"
	cat >"$dir/models/s/hourly.sql" <<'SQL'
@config materialized=incremental, temporality=temporal, time_column=ts, grain=1h,
        start='2015-01-01', end='2026-05-29 16:00'
SELECT ts FROM raw.ev WHERE ts >= {since} AND ts < {until}
SQL
	(cd "$dir" && "$sluice" sql "CREATE SCHEMA raw; CREATE TABLE raw.ev (ts TIMESTAMP)" &&
		SLUICE_NOW='2015-01-01 01:00' "$sluice" run) >"$out/last.log" 2>&1
}

# windows_state DIR mixed|alternating: the model's 100,000 windows as a
# run of years would leave them: mixed, every 500 hours 480 applied, 10
# blocked, 5 failed and 5 never built (800 runs); alternating, applied
# and blocked by turns (100,000 runs, the most there can be)
windows_state() {
	local status
	if [[ $2 == mixed ]]; then
		status="CASE WHEN h % 500 < 480 THEN 'applied' WHEN h % 500 < 490 THEN 'blocked' ELSE 'failed' END"
	else
		status="CASE WHEN h % 2 = 0 THEN 'applied' ELSE 'blocked' END"
	fi
	(cd "$1" && "$sluice" sql "DELETE FROM _sluice.windows; INSERT INTO _sluice.windows
		SELECT 's.hourly', '', TIMESTAMP '2015-01-01' + INTERVAL (h) HOUR,
			TIMESTAMP '2015-01-01' + INTERVAL (h + 1) HOUR, st, CASE WHEN st = 'applied' THEN TIMESTAMP '2026-06-01' END,
			NULL, CASE WHEN st = 'blocked' THEN 'up.hourly (encapsulate)' END, 1,
			CASE WHEN st = 'failed' THEN 'boom: @assert v >= 0 (models/s/hourly.sql:3): 1 failing row' END, '1h'
		FROM (SELECT h, $status AS st FROM range(0, 100000) t(h) WHERE h % 500 < 495 OR '$2' <> 'mixed')") \
		>"$out/last.log" 2>&1
}

bench_ui() {
	local runs_ui=$((runs < 7 ? 7 : runs)) n dir way
	echo
	echo "== web UI in chromium (bench/ui.mjs, playwright-core): the DAG page's first paint, event to painted node, the Windows page"
	[[ -x /usr/bin/chromium && -d ${DEPS:-.deps}/node_modules/playwright-core ]] ||
		die "chromium or playwright-core missing (run scripts/bootstrap.sh)"
	for n in 2000 10000; do
		dir=$out/ui_dag_$n
		# chains of 50 models, as the 2,000-model project has
		bench/gen_project.sh "$dir" "$n" $((n / 50)) || die "cannot generate the project"
		ui_serve "$dir" || return
		echo "   $n generated models in $((n / 50)) chains of 50, not built (load average $(cut -d' ' -f1-3 /proc/loadavg)):"
		SLUICE_DEPS=${DEPS:-.deps} node bench/ui.mjs dag "$ui_url" "$runs_ui" "$n models" || show_failure "bench/ui.mjs dag failed"
		serve_stop
	done
	dir=$out/ui_events
	bench/gen_project.sh "$dir" 2000 || die "cannot generate the project"
	write_live_models "$dir"
	timed "$sluice" run -s 'live.*' --project "$dir" || {
		show_failure "sluice run of the live models failed"
		return
	}
	ui_serve "$dir" || return
	echo "   the 2,000-model project with a webhook source and 21 live models, for ${BENCH_UI_SECONDS:-20} s (load average $(cut -d' ' -f1-3 /proc/loadavg)):"
	SLUICE_DEPS=${DEPS:-.deps} node bench/ui.mjs events "$ui_url" "${BENCH_UI_SECONDS:-20}" "${BENCH_UI_RATE:-200}" ||
		show_failure "bench/ui.mjs events failed"
	serve_stop
	dir=$out/ui_windows
	write_windows_project "$dir" || {
		show_failure "cannot build the windows project"
		return
	}
	for way in mixed alternating; do
		windows_state "$dir" "$way" || {
			show_failure "cannot write the windows' state"
			return
		}
		SLUICE_NOW='2027-01-01' ui_serve "$dir" || return
		echo "   100,000 hourly windows, $way (load average $(cut -d' ' -f1-3 /proc/loadavg)):"
		SLUICE_DEPS=${DEPS:-.deps} node bench/ui.mjs windows "$ui_url" "$runs_ui" s.hourly "100,000 hourly windows, $way" ||
			show_failure "bench/ui.mjs windows failed"
		serve_stop
	done
}

# ------------------------------------------------------------ CDC apply

write_cdc_project() { # write_cdc_project DIR
	local dir=$1
	rm -rf "$dir/models" && mkdir -p "$dir/models/silver"
	cat >"$dir/sluice.yml" <<'YML'
name: cdcbench
sources:
  changes: {kind: webhook, columns: {id: BIGINT, account: BIGINT, amount: BIGINT, status: VARCHAR, op: VARCHAR, lsn: BIGINT}}
live: {debounce: 50ms, max_latency: 100ms, min_interval: 0}
YML
	cat >"$dir/models/silver/accounts.sql" <<'SQL'
@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=id,
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT id, account, amount, status, op, lsn, _sluice_seq FROM landing.changes
SQL
}

# cdc_batches SIZE ROWS [merge]: the events applied in batches of SIZE to
# fresh copies of the ROWS-row warehouse by the live runner, the model's
# statements alone and the hand-written DELETE + INSERT (and MERGE when
# asked); the sides must end in the same table
cdc_batches() {
	local size=$1 rows=$2 merge=${3:-} dir=$out/cdc bin=$out/cdc_apply pristine=$out/cdc_pristine.duckdb
	local dbs=("$out/cdc/warehouse.duckdb" "$out/cdc_mat.duckdb" "$out/cdc_raw.duckdb")
	local s_rate r_rate m_rate want got f
	[[ -n $merge ]] && dbs+=("$out/cdc_merge.duckdb")
	for f in "${dbs[@]}"; do
		fresh_copy "$pristine" "$f" || die "cannot copy $pristine"
	done
	timed "$bin" run "$dir" "$size" "${dbs[@]:1}" || {
		show_failure "cdc_apply run failed"
		return 1
	}
	sed 's/^/   /' "$out/last.log"
	s_rate=$(sed -n 's/^sluice (live runner.* = \([0-9]*\) events\/s.*/\1/p' "$out/last.log")
	r_rate=$(sed -n 's/^hand-written DELETE.* = \([0-9]*\) events\/s.*/\1/p' "$out/last.log")
	m_rate=$(sed -n 's/^hand-written MERGE.* = \([0-9]*\) events\/s.*/\1/p' "$out/last.log")
	want=$("$bin" digest "${dbs[2]}" 2>&1)
	for f in "${dbs[0]}" "${dbs[1]}"; do
		got=$("$bin" digest "$f" 2>&1)
		if [[ $want != "$got" ]]; then
			echo "  FAILED: the sides built different tables: ${f#"$root"/} '$got' vs raw '$want'"
			failed=1
			return 1
		fi
	done
	echo "   every side: $got"
	[[ -n $m_rate ]] && echo "   hand-written MERGE: $m_rate events/s; sluice takes $(ratio "$m_rate" "$s_rate")x its time"
	echo "CDC apply in batches of $size into a $rows-row merge model: sluice $s_rate events/s vs hand-written DELETE + INSERT $r_rate events/s = $(ratio "$r_rate" "$s_rate")x its time (target <= 1.20x)$(verdict $((s_rate * 120 >= r_rate * 100)))"
}

# next_rate LO HI START: the next rate of a search that doubles from START
# while the rate holds, then halves the gap between the highest rate that
# held (LO, 0 for none) and the lowest that did not (HI, 0 for none), in
# steps of 1000 events/s; fails when the search is done: the gap is an
# eighth of LO or less, or not even 1000 events/s held
next_rate() {
	local lo=$1 hi=$2 mid
	if ((hi == 0)); then
		echo $((lo ? 2 * lo : $3))
		return
	fi
	mid=$(((lo + hi) / 2000 * 1000))
	((lo == 0 && hi > 1000 && mid < 1000)) && mid=1000
	(((hi - lo) * 8 > lo && mid > lo && mid < hi)) && echo "$mid"
}

# stream_step SIDE RATE ROWS SECONDS: one run of SIDE (sluice or engine) at
# RATE events/s on a fresh copy of the ROWS-row warehouse; its line in
# $stream_line and, when everything got applied, the model's digest in
# $stream_digest. Returns 0 when the rate held, 1 when it did not, 2 when
# the run failed.
stream_step() {
	local side=$1 rate=$2 rows=$3 secs=$4 db=$out/cdc/warehouse.duckdb
	local cmd=("$out/cdc_stream" "$out/cdc")
	if [[ $side == engine ]]; then
		db=$out/cdc_stream_raw.duckdb
		cmd=("$out/raw_cdc_stream" "$db")
	fi
	fresh_copy "$out/cdc_pristine.duckdb" "$db" || die "cannot copy the CDC warehouse"
	timed "${cmd[@]}" "$rows" "$rate" "$secs" || {
		show_failure "${cmd[0]##*/} failed"
		return 2
	}
	stream_line=$(tail -n 1 "$out/last.log")
	echo "   $stream_line"
	stream_digest=
	[[ $stream_line == *"not applied by the end"* ]] ||
		stream_digest=$("$out/cdc_apply" digest "$db" 2>&1)
	[[ $stream_line == *": held" ]]
}

# cdc_stream_search ROWS: the highest rate at which each side holds a p99
# lag of 2 s, the two searches taking their steps in turn (so a busy
# machine slows both); where both sides ran the same rate to the end they
# must have built the same table
cdc_stream_search() {
	local rows=$1 secs=${BENCH_CDC_STREAM_SECONDS:-30} start=${BENCH_CDC_RATE:-25000}
	local -A lo=([sluice]=0 [engine]=0) hi=([sluice]=0 [engine]=0) line=() digest=()
	local side rate rc more=1 ratio_txt=?
	echo
	echo "== CDC apply under a live stream: change events at a fixed rate for $secs s a step into the $rows-row model, sluice (bench/cdc_stream.c: the ingest writer and the live runner thread) and the engine alone (bench/raw_cdc_stream.c) in turn; the highest rate at p99 lag <= 2 s"
	build_program cdc_stream
	cc -std=c11 -O2 -Wall -Wextra -I"$duckdb/include" bench/raw_cdc_stream.c -L"$duckdb/lib" \
		-Wl,-rpath,"$duckdb/lib" -lduckdb -lpthread -o "$out/raw_cdc_stream" || die "cannot build bench/raw_cdc_stream.c"
	echo "   load average $(cut -d' ' -f1-3 /proc/loadavg)"
	while ((more)); do
		more=0
		for side in sluice engine; do
			rate=$(next_rate "${lo[$side]}" "${hi[$side]}" "$start") || continue
			more=1
			stream_step "$side" "$rate" "$rows" "$secs"
			rc=$?
			((rc == 2)) && return
			if ((rc == 0)); then
				lo[$side]=$rate
				line[$side]=$stream_line
			else
				hi[$side]=$rate
			fi
			[[ -n $stream_digest ]] && digest[$side:$rate]=$stream_digest
			if [[ -n ${digest[sluice:$rate]:-} && -n ${digest[engine:$rate]:-} &&
				${digest[sluice:$rate]} != "${digest[engine:$rate]}" ]]; then
				echo "  FAILED: at $rate events/s the sides built different tables: sluice '${digest[sluice:$rate]}', the engine '${digest[engine:$rate]}'"
				failed=1
				return
			fi
		done
	done
	echo "   load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "   sluice at its highest rate: ${line[sluice]:-none held}"
	echo "   the engine at its highest rate: ${line[engine]:-none held}"
	((lo[engine])) && ratio_txt=$(ratio "${lo[sluice]}" "${lo[engine]}")
	echo "CDC apply under a live stream into a $rows-row merge model: sluice holds p99 lag <= 2 s up to ${lo[sluice]} events/s, the engine alone (hand-written DELETE + INSERT of whatever landed) up to ${lo[engine]} events/s = ${ratio_txt}x its rate (target >= 100000 events/s)$(verdict $((lo[sluice] >= 100000)))"
}

bench_cdc() {
	local dir=$out/cdc bin=$out/cdc_apply pristine=$out/cdc_pristine.duckdb stamp size merge=1
	local rows=${BENCH_CDC_ROWS:-10000000} events=${BENCH_CDC_EVENTS:-1000000}
	local sizes=${BENCH_CDC_BATCHES-10000 50000 200000}
	echo
	echo "== CDC apply: $events change events into a $rows-row merge model in batches of ${sizes// /, }"
	build_program cdc_apply
	write_cdc_project "$dir"

	# the starting warehouse is made once and kept while its recipe stays the same
	stamp="$rows $events $(cat bench/cdc_apply.c bench/bench_sql.h | cksum) $(cksum <"$dir/models/silver/accounts.sql") $(stat -c '%s %Y' "$duckdb/lib/libduckdb.so")"
	if [[ ! -f $pristine || "$(cat "$out/cdc_pristine.stamp" 2>/dev/null)" != "$stamp" ]]; then
		echo "   building the $rows-row model and the events in ${pristine#"$root"/} ..."
		rm -f "$pristine" "$pristine.wal" "$out/cdc_pristine.stamp" "$dir/warehouse.duckdb" "$dir/warehouse.duckdb.wal"
		timed "$bin" init "$dir" "$rows" "$events" || {
			show_failure "cdc_apply init failed"
			return
		}
		mv "$dir/warehouse.duckdb" "$pristine" && echo "$stamp" >"$out/cdc_pristine.stamp"
	fi

	# the hand-written MERGE takes seconds a batch: with the first size only
	for size in $sizes; do
		cdc_batches "$size" "$rows" ${merge:+merge} || return
		merge=
	done
	((${BENCH_CDC_STREAM_SECONDS:-30} > 0)) && cdc_stream_search "$rows"
}

# ------------------------------------------------- maintained aggregates

ivm_rows=${BENCH_IVM_ROWS:-10000000}

# write_ivm_project DIR WAREHOUSE: the orders (a live CDC merge model fed
# by a webhook source) and the three aggregates sluice maintains, on the
# warehouse the line WAREHOUSE of sluice.yml names
write_ivm_project() {
	local dir=$1 g
	rm -rf "$dir/models" && mkdir -p "$dir/models/silver" "$dir/models/gold"
	cat >"$dir/sluice.yml" <<YML
name: ivmbench
warehouse: $2
sources:
  orders: {kind: webhook, columns: {order_id: BIGINT, r10: BIGINT, r1k: BIGINT, r100k: BIGINT, amount: BIGINT, op: VARCHAR, lsn: BIGINT}}
live: {debounce: 50ms, max_latency: 100ms, min_interval: 0}
YML
	cat >"$dir/models/silver/orders.sql" <<'SQL'
@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=order_id,
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT order_id, r10, r1k, r100k, amount, op, lsn, _sluice_seq FROM landing.orders
SQL
	for g in 10 1k 100k; do
		cat >"$dir/models/gold/g$g.sql" <<SQL
@config materialized=incremental, live=true
SELECT r$g, count(*) AS orders, sum(amount) AS revenue FROM silver.orders GROUP BY r$g
SQL
	done
}

# ivm_run DIR_SQL DIR_RUNNER: bench/ivm.c's batches on the two copies,
# its lines printed with the load average
ivm_run() {
	local batches=${BENCH_IVM_BATCHES:-25} batch=${BENCH_IVM_BATCH:-1000}
	local rebuilds=${BENCH_IVM_REBUILDS:-5} cross=${BENCH_IVM_CROSSOVER:-30}
	echo "   $batches batches of $batch events after a warm-up one, the rebuild $rebuilds times among them, then one of $cross% of the orders; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	timed "$out/ivm" run "$1" "$2" "$ivm_rows" "$batches" "$batch" "$rebuilds" "$cross" || {
		show_failure "ivm run failed"
		return 1
	}
	cat "$out/last.log"
	echo "   took $(secs "$elapsed") s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

bench_ivm() {
	local dir=$out/ivm_build pristine=$out/ivm_pristine.duckdb stamp d
	echo
	echo "== maintained aggregates: counted refreshes of count(*) and sum() by 10, 1000 and 100000 groups over a $ivm_rows-row live merge model (bench/ivm.c), against a rebuild of the same GROUP BY"
	build_program ivm
	write_ivm_project "$dir" "{type: duckdb, path: warehouse.duckdb}"
	# the starting warehouse is made once and kept while its recipe stays the same
	stamp="$ivm_rows $(cat bench/ivm.c bench/bench_sql.h "$dir"/models/*/*.sql | cksum) $(stat -c '%s %Y' "$duckdb/lib/libduckdb.so")"
	if [[ ! -f $pristine || "$(cat "$out/ivm_pristine.stamp" 2>/dev/null)" != "$stamp" ]]; then
		echo "   building the $ivm_rows orders and the aggregates in ${pristine#"$root"/} ..."
		rm -f "$pristine" "$pristine.wal" "$out/ivm_pristine.stamp" "$dir/warehouse.duckdb" "$dir/warehouse.duckdb.wal"
		timed "$out/ivm" init "$dir" "$ivm_rows" || {
			show_failure "ivm init failed"
			return
		}
		sed 's/^/   /' "$out/last.log"
		mv "$dir/warehouse.duckdb" "$pristine" && echo "$stamp" >"$out/ivm_pristine.stamp"
	fi
	for d in ivm_sql ivm_runner; do
		write_ivm_project "$out/$d" "{type: duckdb, path: warehouse.duckdb}"
		fresh_copy "$pristine" "$out/$d/warehouse.duckdb" || die "cannot copy $pristine"
	done
	ivm_run "$out/ivm_sql" "$out/ivm_runner"
}

# ------------------------------------------------------- kafka landing

# kafka_side PROGRAM ARGS...: runs one side, its "MESSAGES SECONDS CPU"
# into side_n, side_s, side_cpu; the rate and CPU microseconds a message
# into side_rate and side_us.
kafka_side() {
	local line
	timed "$@" || return 1
	line=$(tail -1 "$out/last.log")
	read -r side_n side_s side_cpu _ <<<"$line"
	side_rate=$(awk -v n="$side_n" -v s="$side_s" 'BEGIN { printf "%d", n / s }')
	side_us=$(awk -v n="$side_n" -v c="$side_cpu" 'BEGIN { printf "%.2f", c * 1e6 / n }')
}

# kafka_landings WAREHOUSE TARGET WH_RATE WH_NAME: sluice's landing of the
# topic into TARGET (a DuckDB file, or a new PostgreSQL database's DSN), the
# value as payload and typed, each against the slower of the bare consumer
# ($consumer_rate) and WH_NAME (WH_RATE rows/s), with the CPU a message
# of this process (and of the PostgreSQL server's)
kafka_landings() {
	local wh=$1 target=$2 wh_rate=$3 wh_name=$4 slow slow_name how rate g0 server
	if ((consumer_rate < wh_rate)); then
		slow=$consumer_rate slow_name="the consumer"
	else
		slow=$wh_rate slow_name=$wh_name
	fi
	for how in raw typed; do
		if [[ $wh == duckdb ]]; then
			rm -f "$target" "$target.wal"
		else
			pg_db "kafka_$how" || return 1
			target=$db_dsn
		fi
		[[ $wh == postgres ]] && g0=$(pg_ticks)
		kafka_side "$out/kafka" "$wh" "$target" "$brokers" bench $how ||
			{ show_failure "sluice's landing into $wh ($how) failed"; return 1; }
		rate=$side_rate server=
		[[ $wh == postgres ]] && server=" (PostgreSQL $(pg_us_per "$g0" "$(pg_ticks)" "$side_n") µs)"
		if [[ $how == raw ]]; then
			echo "kafka landing into $wh, the value as payload: $rate messages/s, $side_us µs CPU a message$server = $(ratio "$rate" "$slow")x $slow_name, the slower half (target >= 0.8)$(verdict $((rate * 10 >= slow * 8)))"
		else
			echo "kafka landing into $wh, typed columns read from each JSON value: $rate messages/s, $side_us µs CPU a message$server = $(ratio "$rate" "$slow")x $slow_name (target >= 0.5)$(verdict $((rate * 10 >= slow * 5)))"
		fi
	done
}

# pg_us_per BEFORE AFTER N: the PostgreSQL server's CPU microseconds an
# item between two pg_ticks
pg_us_per() {
	awk -v n="$3" -v d=$(($2 - $1)) 'BEGIN { printf "%.2f", d * 10000 / n }'
}

bench_kafka() {
	local n=${BENCH_KAFKA_MESSAGES:-2000000} parts=64 raw=$out/raw_kafka brokers line p
	local prefix consumer_rate g0 g1
	echo
	echo "== kafka landing: $n messages over $parts partitions of librdkafka's mock cluster (tools/kafka_mock, a process of its own), landed by sluice (bench/kafka.c) into DuckDB and into PostgreSQL, against each half alone: a bare consumer with sluice's settings (bench/raw_kafka.c), the warehouse's bulk path writing the same rows (DuckDB's appender, bench/raw_kafka.c; PostgreSQL's COPY FROM STDIN through libpq, bench/raw_kafka_pg.c)"
	build_program kafka
	cc -std=c11 -O2 -Wall -Wextra -I"$duckdb/include" bench/raw_kafka.c -L"$duckdb/lib" \
		-Wl,-rpath,"$duckdb/lib" -lduckdb -lrdkafka -o "$raw" || die "cannot build bench/raw_kafka.c"
	build_raw_pg raw_kafka_pg
	make -s -C "$root" build/release/tools/kafka_mock || die "cannot build kafka_mock"
	coproc MOCK { exec "$root/build/release/tools/kafka_mock" 2>"$out/kafka_mock.log"; }
	read -r -t 10 line <&"${MOCK[0]}" || die "kafka_mock did not start"
	brokers=${line#bootstrap }
	mock() {
		local reply
		echo "$*" >&"${MOCK[1]}"
		read -r -t 120 reply <&"${MOCK[0]}" && [[ $reply == ok* ]] || die "kafka_mock: $*: $reply"
	}
	# about 120 bytes a message: a key of 47, a value of 62; 31,250 a
	# partition at the default size, under the 5 MiB the mock keeps
	prefix=$(printf 'x%.0s' {1..40})
	mock topic bench $parts
	timed true
	for ((p = 0; p < parts; p++)); do
		mock sendmany bench $p $((n / parts)) "$prefix"
	done
	echo "   the topic filled; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	kafka_side "$raw" consume "$brokers" bench "$n" || { show_failure "the bare consumer failed"; return; }
	consumer_rate=$side_rate
	echo "   bare consumer: $side_n messages in $side_s s = $side_rate/s, $side_us µs CPU a message"
	rm -f "$out/kafka_raw.duckdb"
	kafka_side "$raw" append "$out/kafka_raw.duckdb" "$n" $parts "$prefix" ||
		{ show_failure "the appender failed"; return; }
	echo "   DuckDB appender: $side_n rows in $side_s s = $side_rate/s, $side_us µs CPU a row"
	kafka_landings duckdb "$out/kafka_land.duckdb" "$side_rate" "the appender" || return
	if pg_start && pg_db kafka_copy; then
		g0=$(pg_ticks)
		kafka_side "$out/raw_kafka_pg" "$db_dsn" "$n" $parts "$prefix" ||
			{ show_failure "raw_kafka_pg failed"; return; }
		g1=$(pg_ticks)
		echo "   PostgreSQL COPY FROM STDIN: $side_n rows in $side_s s = $side_rate/s, $side_us µs CPU a row (PostgreSQL $(pg_us_per "$g0" "$g1" "$side_n") µs)"
		kafka_landings postgres "" "$side_rate" "COPY" || return
	fi
	echo "   load average $(cut -d' ' -f1-3 /proc/loadavg); the mock brokers, the consumer and the warehouse share the $(nproc) cores"
	echo quit >&"${MOCK[1]}"
	wait "$MOCK_PID" 2>/dev/null
}

# ------------------------------------------------- webhook ingest (serve)

# serve_start DIR: `sluice serve` on a free loopback port in DIR; sets
# $serve_pid once the server file names it.
serve_start() {
	local dir=$1 i
	rm -f "$dir/.sluice/server.json"
	(cd "$dir" && exec "$sluice" serve --listen 127.0.0.1:0 >serve.log 2>&1) &
	serve_pid=$!
	for i in $(seq 400); do
		grep -qs "\"pid\": $serve_pid," "$dir/.sluice/server.json" && return 0
		kill -0 "$serve_pid" 2>/dev/null || break
		sleep 0.025
	done
	return 1
}

# start_project DIR: builds DIR's project and starts its server; says why
# when it cannot
start_project() {
	if ! "$sluice" run --project "$1" >"$out/last.log" 2>&1; then
		show_failure "sluice run failed"
		return 1
	fi
	if ! serve_start "$1"; then
		cp "$1/serve.log" "$out/last.log"
		show_failure "sluice serve did not start"
		return 1
	fi
}

serve_stop() {
	kill -TERM "$serve_pid" 2>/dev/null
	wait "$serve_pid" 2>/dev/null
}

# post_load DIR ARGS...: the load generator against DIR's server; its
# summary line in $out/last.log
post_load() {
	local dir=$1
	shift
	"$root/build/release/tools/post_load" --server-file "$dir/.sluice/server.json" \
		--source events "$@" >"$out/last.log" 2>&1
}

# field NAME: a figure of the load generator's summary in $out/last.log
# ("requests/s", "events/s", "p99" of the ack latency, "lag p99")
field() {
	case $1 in
	"lag p99") sed -n 's|.* covering it: .*, p99 \([0-9.]*\) ms.*|\1|p' "$out/last.log" ;;
	p50) sed -n 's|.*ack latency p50 \([0-9.]*\) ms.*|\1|p' "$out/last.log" | head -1 ;;
	p99) sed -n 's|.*ack latency .*, p99 \([0-9.]*\) ms.*|\1|p' "$out/last.log" | head -1 ;;
	*) sed -n "s|.* \\([0-9.]*\\) $1[,;].*|\\1|p" "$out/last.log" | head -1 ;;
	esac
}

# le A B / ge A B: float comparisons for verdict
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

write_ingest_project() { # write_ingest_project DIR [FLUSH_INTERVAL]: without one, the default
	local dir=$1 linger=
	[[ -n ${2:-} ]] && linger="ingest: {flush_interval: $2}"
	rm -rf "$dir"
	mkdir -p "$dir/models/silver"
	cat >"$dir/sluice.yml" <<YML
name: ingest
sources:
  events: {kind: webhook, columns: {id: BIGINT, account: BIGINT, amount: BIGINT}}
$linger
YML
	# a project needs a model; a view costs the writer nothing
	cat >"$dir/models/silver/events.sql" <<'SQL'
@config materialized=view
SELECT id, account, amount FROM landing.events
SQL
}

# cpu_ticks PID: CPU time so far (in 1/100 s) of the server's writer
# thread, its HTTP thread and its other threads, as "W H O"
cpu_ticks() {
	local t name line f v w=0 h=0 o=0
	for t in /proc/"$1"/task/*; do
		read -r name <"$t/comm" 2>/dev/null || continue
		line=$(cat "$t/stat" 2>/dev/null) || continue
		read -ra f <<<"${line##*) }"
		v=$((f[11] + f[12]))
		case $name in
		"landing writer") w=$((w + v)) ;;
		MHD*) h=$((h + v)) ;;
		*) o=$((o + v)) ;;
		esac
	done
	echo "$w $h $o"
}

# cpu_per BEFORE AFTER N UNIT: CPU per request or event between two
# cpu_ticks, with the load generator's own from $out/last.log
cpu_per() {
	local b=($1) a=($2) n=$3 pl
	pl=$(sed -n 's/.*; cpu \([0-9.]*\) s$/\1/p' "$out/last.log" | head -1)
	awk -v n="$n" -v u="$4" -v w=$((a[0] - b[0])) -v h=$((a[1] - b[1])) -v o=$((a[2] - b[2])) \
		-v pl="${pl:-0}" 'BEGIN { f = 10000 / n; printf "cpu per %s: writer thread %.1f us, HTTP thread %.1f us, other server threads %.1f us, load generator %.1f us\n", u, w * f, h * f, o * f, pl * 1e6 / n }'
}

# summary LINE: a load generator summary without its name, indented
summary() { sed -n '1s/^post_load: /   /p' "$out/last.log"; }

# raw_field NAME: a figure of raw_ingest's line in $out/last.log ("p50", "p99"
# of a commit or of the lag, "rows/s", "commits/s")
raw_field() {
	case $1 in
	p50 | p99) sed -n "s|.* $1 \\([0-9.]*\\) ms.*|\\1|p" "$out/last.log" | head -1 ;;
	*) sed -n "s|.* \\([0-9.]*\\) $1[,;].*|\\1|p" "$out/last.log" | head -1 ;;
	esac
}

# fratio A B: A/B with two decimals, for figures with decimals
fratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "?" }'; }

# raw_commits COMMITS ROWS: the engine alone landing the same rows, in
# $out/last.log; says why when it cannot
raw_commits() {
	raw_first=$((raw_first + $1 * $2))
	timed "$out/raw_ingest" commits "$out/raw_ingest.duckdb" "$1" "$2" "$raw_first" || {
		show_failure "raw_ingest failed"
		return 1
	}
	sed 's/^raw_ingest: /   the engine alone: /' "$out/last.log"
}

# prev KEY: the figure KEY of the previous run
prev() { sed -n "s/^$1=//p" "$out/ingest_previous.txt" 2>/dev/null; }

# previous FORMAT KEY...: "previous run: " and the previous run's figures
# KEY... in FORMAT, or "none"
previous() {
	local fmt=$1 k v=()
	shift
	for k; do v+=("$(prev "$k")"); done
	if [[ -z ${v[0]} ]]; then
		printf 'previous run: none'
	else
		printf "previous run: $fmt" "${v[@]}"
	fi
}

bench_ingest() {
	local dir=$out/ingest tool=$root/build/release/tools/post_load
	local flush=${BENCH_INGEST_FLUSH:-} single=${BENCH_INGEST_REQUESTS:-100000}
	local one=${BENCH_INGEST_ONE_REQUESTS:-2000} conns=${BENCH_INGEST_CONNS:-64 256}
	local nd_conns=${BENCH_INGEST_NDJSON_CONNS:-32} live_s=${BENCH_LIVE_SECONDS:-10}
	local nd_events=${BENCH_INGEST_NDJSON_EVENTS:-300000} settings figures=$out/ingest_figures.txt
	local c rps p50 p99 eps lag ok t0 t1 seqs per raw_rate raw_p50 raw_p99 first=1000000000
	local target_c=
	raw_first=0
	echo
	echo "== webhook ingest: sluice serve on loopback, driven by post_load (tests/tools) on the same cores; the engine alone: bench/raw_ingest.c, the same rows through the DuckDB appender"
	[[ -x $tool ]] || die "no $tool (run make first: make builds it with the tests' tools)"
	cc -std=c11 -O2 -Wall -Wextra -I"$duckdb/include" bench/raw_ingest.c -L"$duckdb/lib" \
		-Wl,-rpath,"$duckdb/lib" -lduckdb -lpthread -o "$out/raw_ingest" || die "cannot build bench/raw_ingest.c"
	rm -f "$out/raw_ingest.duckdb" "$out/raw_ingest.duckdb.wal"
	settings="ingest.flush_interval ${flush:-default (0)}; $one requests over 1 connection, $single per point over $conns connections, $nd_events NDJSON events over $nd_conns, $live_s s of lag"
	echo "   $settings; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	[[ -f $figures ]] && mv "$figures" "$out/ingest_previous.txt"
	if [[ -f $out/ingest_previous.txt ]]; then
		echo "   previous run: $(prev when), load average $(prev load); $(prev settings)"
	else
		echo "   previous run: none in ${out#"$root"/}"
	fi
	{
		echo "when=$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
		echo "settings=$settings"
	} >"$figures"

	# (a) and (b): ingest alone (a project without live models), one server
	write_ingest_project "$dir" "$flush"
	start_project "$dir" || return
	if ! post_load "$dir" --events 5000 --first-id 4000000000 --conns 64; then
		show_failure "post_load failed"
		serve_stop
		return
	fi

	# (a1) one sender, one event at a time: each request waits for a commit
	# of its own, so its latency is one commit plus the HTTP round trip
	if ! post_load "$dir" --events "$one" --first-id 900000000 --conns 1; then
		show_failure "post_load failed"
		serve_stop
		return
	fi
	summary
	rps=$(field requests/s) p50=$(field p50) p99=$(field p99)
	raw_commits "$one" 1 || {
		serve_stop
		return
	}
	raw_p50=$(raw_field p50) raw_p99=$(raw_field p99) raw_rate=$(raw_field commits/s)
	ok=0
	le "$p50" 3 && ok=1
	echo "one connection, one event per request: p50 ack $p50 ms (target <= 3 ms), p99 $p99 ms, $rps requests/s; the engine alone, one row per commit: p50 $raw_p50 ms, p99 $raw_p99 ms, $raw_rate commits/s = $(fratio "$p50" "$raw_p50")x its p50; $(previous 'p50 %s ms, p99 %s ms, %s requests/s, %sx' one_p50 one_p99 one_rps one_ratio)$(verdict $ok)"
	printf 'one_p50=%s\none_p99=%s\none_rps=%s\none_ratio=%s\n' "$p50" "$p99" "$rps" \
		"$(fratio "$p50" "$raw_p50")" >>"$figures"

	# (a2) single-event requests over many connections: each connection has
	# one request waiting at a time, and a request waits for its flush's
	# commit, so requests/s = connections / latency
	for c in $conns; do
		[[ -z $target_c ]] && target_c=$c
		[[ $c == 64 ]] && target_c=64
	done
	for c in $conns; do
		first=$((first + single))
		t0=$(cpu_ticks "$serve_pid")
		if ! post_load "$dir" --events "$single" --first-id "$first" --conns "$c"; then
			show_failure "post_load failed"
			serve_stop
			return
		fi
		t1=$(cpu_ticks "$serve_pid")
		rps=$(field requests/s) p50=$(field p50) p99=$(field p99)
		seqs=$(sed -n 's/.* sequences: \([0-9]*\),.*/\1/p' "$out/last.log")
		per=$(((single + ${seqs:-1} / 2) / ${seqs:-1}))
		((per < 1)) && per=1
		echo "   $c connections: $rps requests/s, p99 ack $p99 ms (p50 $p50 ms), $per requests per commit; $(cpu_per "$t0" "$t1" "$single" request)"
		raw_commits $(((single + per - 1) / per)) "$per" || {
			serve_stop
			return
		}
		raw_rate=$(raw_field rows/s)
		if [[ $c == "$target_c" ]]; then
			ok=0
			ge "$rps" 20000 && le "$p99" 25 && ok=1
			echo "$c connections, one event per request: $rps requests/s at p99 ack $p99 ms (target >= 20000 requests/s at p99 <= 25 ms), p50 $p50 ms; the engine alone, commits of the same $per rows: $raw_rate rows/s = $(fratio "$raw_rate" "$rps")x its time; $(previous '%s requests/s at p99 %s ms, %sx' conns_rps conns_p99 conns_ratio)$(verdict $ok)"
			printf 'conns_rps=%s\nconns_p99=%s\nconns_ratio=%s\n' "$rps" "$p99" \
				"$(fratio "$raw_rate" "$rps")" >>"$figures"
		else
			echo "   $c connections (for scale): the engine alone, commits of the same $per rows: $raw_rate rows/s = $(fratio "$raw_rate" "$rps")x its time"
		fi
	done

	# (b) 100-event NDJSON requests
	t0=$(cpu_ticks "$serve_pid")
	if ! post_load "$dir" --events "$nd_events" --first-id 3000000000 --batch 100 \
		--conns "$nd_conns"; then
		show_failure "post_load failed"
		serve_stop
		return
	fi
	t1=$(cpu_ticks "$serve_pid")
	serve_stop
	summary
	echo "   $(cpu_per "$t0" "$t1" "$nd_events" event)"
	eps=$(field events/s) p99=$(field p99)
	seqs=$(sed -n 's/.* sequences: \([0-9]*\),.*/\1/p' "$out/last.log")
	per=$(((nd_events + ${seqs:-1} / 2) / ${seqs:-1}))
	((per < 1)) && per=1
	raw_commits $(((nd_events + per - 1) / per)) "$per" || return
	raw_rate=$(raw_field rows/s)
	ok=0
	ge "$eps" 300000 && ok=1
	echo "100-event NDJSON requests ($nd_conns connections): $eps events/s (target >= 300000 events/s), p99 ack $p99 ms, $per events per commit; the engine alone, commits of the same $per rows: $raw_rate rows/s = $(fratio "$raw_rate" "$eps")x its time; $(previous '%s events/s, %sx' nd_eps nd_ratio)$(verdict $ok)"
	printf 'nd_eps=%s\nnd_ratio=%s\n' "$eps" "$(fratio "$raw_rate" "$eps")" >>"$figures"

	# (c): the live chain behind the webhook source, fed at 10,000 events/s
	write_live_project "$dir"
	start_project "$dir" || return
	if ! post_load "$dir" --events $((live_s * 10000)) --batch 100 --conns 16 --rate 10000 \
		--accounts 500 --lag-model gold.accounts --lag-poll 20; then
		show_failure "post_load failed"
		serve_stop
		return
	fi
	serve_stop
	summary
	sed -n '2s/^post_load: /   /p' "$out/last.log"
	lag=$(field "lag p99")
	eps=$(field events/s)
	timed "$out/raw_ingest" lag "$out/raw_lag.duckdb" "$live_s" 10000 100 || {
		show_failure "raw_ingest lag failed"
		return
	}
	sed 's/^raw_ingest: /   the engine alone: /' "$out/last.log"
	raw_p99=$(raw_field p99)
	ok=0
	le "${lag:-1e9}" 250 && ok=1
	echo "lag from acknowledgement to gold at 10000 events/s in requests of 100: p99 ${lag:-?} ms (target <= 250 ms), $eps events/s acknowledged; the engine alone, the chain's statements back to back: p99 $raw_p99 ms = $(fratio "${lag:-0}" "$raw_p99")x; $(previous 'p99 %s ms, %sx' lag_p99 lag_ratio)$(verdict $ok)"
	printf 'lag_p99=%s\nlag_ratio=%s\n' "${lag:-?}" "$(fratio "${lag:-0}" "$raw_p99")" >>"$figures"
}

# ------------------------------------------------------------ PostgreSQL
#
# The same benchmarks on a PostgreSQL 15 warehouse, against the same work
# sent through libpq (bench/raw_chain_pg.c, bench/raw_ingest_pg.c). The
# script starts a throwaway server of its own (tests/pg_server.sh: a unix
# socket in a temporary folder, fsync off) the first time one of them
# runs, gives each benchmark databases of its own, and stops the server
# when it exits, however it exits. The postgres_cdc consumer's benchmarks
# read from a second one (the source), which also listens on a loopback
# TCP port with a password.

pg_dir= pg_dsn= src_dir= src_pg_dsn= src_pg_tcp_dsn= server_dir= server_dsns= cdc_pid=
src_dbs=() # the source databases made on BENCH_PGCDC_SOURCE_DSN's server

pg_stop() {
	# a postgres_cdc consumer still running (the script was interrupted)
	if [[ -n $cdc_pid ]]; then
		kill -TERM "$cdc_pid" 2>/dev/null
		wait "$cdc_pid" 2>/dev/null
		cdc_pid=
	fi
	if [[ -n $src_dir ]]; then
		"$root/tests/pg_server.sh" stop "$src_dir"
		rm -rf "$src_dir"
		src_dir=
	fi
	# on a server that is not the script's, only what it made goes
	local db
	for db in "${src_dbs[@]}"; do
		src_dsn="$src_pg_dsn dbname=$db" src_drop_slots
		psql "$src_pg_dsn" -qAtX -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
	done
	src_dbs=()
	[[ -n $pg_dir ]] || return 0
	"$root/tests/pg_server.sh" stop "$pg_dir"
	rm -rf "$pg_dir"
	pg_dir=
}

# new_server NAME [tcp]: a throwaway server started in a new folder of
# /tmp ($server_dir, left empty when it cannot start, saying why), its
# connection strings in $server_dsns (tests/pg_server.sh's lines)
new_server() {
	server_dir=$(mktemp -d "/tmp/sluice-bench-$1-XXXXXX") || die "cannot make a folder for PostgreSQL"
	if ! server_dsns=$("$root/tests/pg_server.sh" start "$server_dir" "${@:2}" 2>"$out/last.log"); then
		"$root/tests/pg_server.sh" stop "$server_dir"
		rm -rf "$server_dir"
		server_dir=
		show_failure "tests/pg_server.sh could not start PostgreSQL"
		return 1
	fi
}

# pg_start: the server, once; fails (saying why) when it cannot start
pg_start() {
	[[ -n $pg_dsn ]] && return 0
	command -v psql >/dev/null || {
		echo "  FAILED: no psql (scripts/bootstrap.sh installs PostgreSQL)"
		failed=1
		return 1
	}
	trap pg_stop EXIT
	trap 'exit 130' INT TERM
	new_server pg || return 1
	pg_dir=$server_dir pg_dsn=$server_dsns
	echo "   PostgreSQL: $(psql "$pg_dsn" -qAtc 'SHOW server_version') in ${pg_dir} (tests/pg_server.sh: fsync off, shared_buffers $(psql "$pg_dsn" -qAtc 'SHOW shared_buffers'), work_mem $(psql "$pg_dsn" -qAtc 'SHOW work_mem'))"
}

# pg_db NAME [TEMPLATE]: the database NAME made afresh (a copy of TEMPLATE
# when given) on the benchmarks' server; its connection string in $db_dsn
pg_db() { db_on "$pg_dsn" "$@"; }

# db_on SERVER_DSN NAME [TEMPLATE]: pg_db on the server SERVER_DSN reaches
db_on() {
	local tmpl=
	[[ -n ${3:-} ]] && tmpl=" TEMPLATE $3 STRATEGY FILE_COPY"
	PGOPTIONS="-c client_min_messages=warning" psql "$1" -qAt -v ON_ERROR_STOP=1 \
		-c "DROP DATABASE IF EXISTS $2" -c "CREATE DATABASE $2$tmpl" >"$out/last.log" 2>&1 || {
		show_failure "cannot make the database $2"
		return 1
	}
	db_dsn="$1 dbname=$2"
}

# pg_project DIR: DIR's project on the warehouse $SLUICE_BENCH_PG names
pg_project() {
	sed -i '/^warehouse:/d' "$1/sluice.yml"
	echo "warehouse: {type: postgres, dsn_env: SLUICE_BENCH_PG}" >>"$1/sluice.yml"
}

build_raw_pg() { # build_raw_pg NAME: bench/NAME.c with libpq into $out/NAME
	cc -std=c11 -O2 -Wall -Wextra -I/usr/include/postgresql "bench/$1.c" -lpq -lpthread \
		-o "$out/$1" || die "cannot build bench/$1.c"
}

# fmedian X...: the median of decimal figures
fmedian() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.10g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

pg_rounds=${BENCH_PG_ROUNDS:-3}

bench_pg_chain() {
	local dir=$out/pg_chain raw=$out/raw_chain_pg sqldir=$out/pg_chain_sql m i side
	local prows=${BENCH_PG_ROWS:-1000000} s_times=() r_times=() pair_ratios=() med_s med_r
	local check="SELECT count(*), sum(active_users), sum(events), sum(buys), sum(revenue) FROM gold.c"
	local want got
	echo
	echo "== PostgreSQL: 3-model chain over $prows rows: sluice run --full-refresh vs the same SQL through libpq"
	pg_start || return
	build_raw_pg raw_chain_pg
	# the input is made once per run of this script, in a template database
	# that every run of either side starts from a copy of
	pg_db bench_chain_pristine || return
	timed "$raw" init "$db_dsn" "$prows" || {
		show_failure "raw_chain_pg init failed"
		return
	}
	echo "   raw.events ($prows rows) made in $(secs "$elapsed") s in the database bench_chain_pristine; each run starts from a copy of it (CREATE DATABASE ... TEMPLATE): bench_chain_sluice, bench_chain_raw"

	write_chain_project "$dir"
	pg_project "$dir"
	pg_db bench_chain_sluice bench_chain_pristine || return
	export SLUICE_BENCH_PG=$db_dsn
	rm -rf "$sqldir" && mkdir -p "$sqldir"
	for m in silver.a silver.b gold.c; do
		"$sluice" compile "$m" --project "$dir" >"$sqldir/$m.sql" 2>"$out/last.log" || {
			show_failure "sluice compile $m failed"
			return
		}
	done
	echo "   models: as the DuckDB chain's (silver.a -> silver.b -> gold.c); SQL from 'sluice compile' in ${sqldir#"$root"/}"

	for ((i = 0; i <= runs; i++)); do
		local order=(sluice raw)
		((i % 2)) && order=(raw sluice)
		for side in "${order[@]}"; do
			if [[ $side == sluice ]]; then
				pg_db bench_chain_sluice bench_chain_pristine || return
				export SLUICE_BENCH_PG=$db_dsn
				if ! timed "$sluice" run --full-refresh --project "$dir" ||
					! grep -q "3 built, 0 failed" "$out/last.log"; then
					show_failure "sluice run did not build the 3 models"
					return
				fi
				((i)) && s_times+=("$elapsed")
			else
				pg_db bench_chain_raw bench_chain_pristine || return
				if ! timed "$raw" run "$db_dsn" silver.a "$sqldir/silver.a.sql" \
					silver.b "$sqldir/silver.b.sql" gold.c "$sqldir/gold.c.sql"; then
					show_failure "raw_chain_pg failed"
					return
				fi
				((i)) && r_times+=("$elapsed")
			fi
		done
		((i)) && pair_ratios+=($(((s_times[i - 1] * 1000 + r_times[i - 1] / 2) / r_times[i - 1])))
	done

	want=$("$raw" query "$pg_dsn dbname=bench_chain_raw" "$check" 2>&1)
	got=$("$raw" query "$pg_dsn dbname=bench_chain_sluice" "$check" 2>&1)
	if [[ $want != "$got" || -z $want ]]; then
		echo "  FAILED: the two sides built different gold.c: sluice '$got' vs raw '$want'"
		failed=1
		return
	fi
	med_s=$(median "${s_times[@]}")
	med_r=$(median "${r_times[@]}")
	echo "   sluice runs (s): $(for t in "${s_times[@]}"; do printf '%s ' "$(secs "$t")"; done)"
	echo "   libpq runs (s):  $(for t in "${r_times[@]}"; do printf '%s ' "$(secs "$t")"; done)"
	echo "   median of the pairwise ratios: $(ratio "$(median "${pair_ratios[@]}")" 1000)x; gold.c: $got; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "PostgreSQL: 3-model chain over $prows rows: sluice $(secs "$med_s") s vs libpq $(secs "$med_r") s = $(ratio "$med_s" "$med_r")x (target <= 1.10x)$(verdict $((med_s * 100 <= med_r * 110)))"
}

# pg_raw_commits COMMITS ROWS: libpq alone landing the same rows into
# $raw_dsn, its line in $out/last.log; says why when it cannot
pg_raw_commits() {
	raw_first=$((raw_first + $1 * $2))
	timed "$out/raw_ingest_pg" commits "$raw_dsn" "$1" "$2" "$raw_first" || {
		show_failure "raw_ingest_pg failed"
		return 1
	}
	sed 's/^raw_ingest_pg: /     libpq alone: /' "$out/last.log"
}

# pg_ticks: CPU time so far (in 1/100 s) of the PostgreSQL server's
# processes (the postmaster's children: the backends, autovacuum, the WAL
# writer...), those that ended too: a benchmark's backend ends with its
# connection, and its time is then the postmaster's children's
pg_ticks() {
	local pm t line f sum=0
	pm=$(head -1 "$pg_dir/data/postmaster.pid" 2>/dev/null)
	[[ -n $pm ]] || { echo 0; return; }
	line=$(cat "/proc/$pm/stat" 2>/dev/null) && read -ra f <<<"${line##*) }" &&
		sum=$((f[13] + f[14]))
	for t in $(pgrep -P "$pm" 2>/dev/null); do
		line=$(cat "/proc/$t/stat" 2>/dev/null) || continue
		read -ra f <<<"${line##*) }"
		sum=$((sum + f[11] + f[12]))
	done
	echo "$sum"
}

# pg_cpu_per BEFORE AFTER PG_BEFORE PG_AFTER N UNIT: cpu_per's line with the
# PostgreSQL server's share
pg_cpu_per() {
	echo "$(cpu_per "$1" "$2" "$5" "$6"), PostgreSQL $(awk -v n="$5" -v d=$(($4 - $3)) 'BEGIN { printf "%.1f", d * 10000 / n }') us"
}

# per_commit N: events per commit of the last post_load (N events)
per_commit() {
	local seqs per
	seqs=$(sed -n 's/.* sequences: \([0-9]*\),.*/\1/p' "$out/last.log")
	per=$((($1 + ${seqs:-1} / 2) / ${seqs:-1}))
	((per < 1)) && per=1
	echo "$per"
}

bench_pg_ingest() {
	local dir=$out/pg_ingest one=${BENCH_PG_INGEST_ONE_REQUESTS:-1000}
	local single=${BENCH_PG_INGEST_REQUESTS:-30000} nd_events=${BENCH_PG_INGEST_NDJSON_EVENTS:-200000}
	local nd_conns=${BENCH_INGEST_NDJSON_CONNS:-32} first=1000000000 r per ok raw_dsn t0 t1 g0 g1
	local o_p50=() o_p99=() o_raw=() c_rps=() c_p99=() c_p50=() c_raw=() n_eps=() n_p99=() n_raw=()
	local m_rps m_p99 m_raw m_eps
	raw_first=0
	echo
	echo "== PostgreSQL: webhook ingest through sluice serve, driven by post_load on the same cores; libpq alone: bench/raw_ingest_pg.c, the same rows with COPY in commits of the same size"
	[[ -x $root/build/release/tools/post_load ]] || die "no post_load (run make first)"
	pg_start || return
	build_raw_pg raw_ingest_pg
	pg_db bench_ingest_raw || return
	raw_dsn=$db_dsn
	pg_db bench_ingest || return
	export SLUICE_BENCH_PG=$db_dsn
	echo "   $pg_rounds rounds, each: $one requests over 1 connection, $single over 64 connections, $nd_events NDJSON events in requests of 100 over $nd_conns connections, each followed by libpq alone; databases bench_ingest, bench_ingest_raw; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	write_ingest_project "$dir" "${BENCH_INGEST_FLUSH:-}"
	pg_project "$dir"
	start_project "$dir" || return
	if ! post_load "$dir" --events 5000 --first-id 4000000000 --conns 64; then
		show_failure "post_load failed"
		serve_stop
		return
	fi
	for ((r = 1; r <= pg_rounds; r++)); do
		echo "   round $r:"
		# one sender, one event at a time (for scale: no PostgreSQL target)
		first=$((first + one))
		if ! post_load "$dir" --events "$one" --first-id "$first" --conns 1; then
			show_failure "post_load failed"
			serve_stop
			return
		fi
		sed -n '1s/^post_load: /     /p' "$out/last.log"
		o_p50+=("$(field p50)") o_p99+=("$(field p99)")
		pg_raw_commits "$one" 1 || {
			serve_stop
			return
		}
		o_raw+=("$(raw_field p50)")

		# 64 connections, one event per request
		first=$((first + single))
		t0=$(cpu_ticks "$serve_pid") g0=$(pg_ticks)
		if ! post_load "$dir" --events "$single" --first-id "$first" --conns 64; then
			show_failure "post_load failed"
			serve_stop
			return
		fi
		t1=$(cpu_ticks "$serve_pid") g1=$(pg_ticks)
		sed -n '1s/^post_load: /     /p' "$out/last.log"
		c_rps+=("$(field requests/s)") c_p99+=("$(field p99)") c_p50+=("$(field p50)")
		per=$(per_commit "$single")
		echo "     $per requests per commit; $(pg_cpu_per "$t0" "$t1" "$g0" "$g1" "$single" request)"
		pg_raw_commits $(((single + per - 1) / per)) "$per" || {
			serve_stop
			return
		}
		c_raw+=("$(raw_field rows/s)")

		# 100-event NDJSON requests
		first=$((first + nd_events))
		t0=$(cpu_ticks "$serve_pid") g0=$(pg_ticks)
		if ! post_load "$dir" --events "$nd_events" --first-id "$first" --batch 100 \
			--conns "$nd_conns"; then
			show_failure "post_load failed"
			serve_stop
			return
		fi
		t1=$(cpu_ticks "$serve_pid") g1=$(pg_ticks)
		sed -n '1s/^post_load: /     /p' "$out/last.log"
		n_eps+=("$(field events/s)") n_p99+=("$(field p99)")
		per=$(per_commit "$nd_events")
		echo "     $per events per commit; $(pg_cpu_per "$t0" "$t1" "$g0" "$g1" "$nd_events" event)"
		pg_raw_commits $(((nd_events + per - 1) / per)) "$per" || {
			serve_stop
			return
		}
		n_raw+=("$(raw_field rows/s)")
	done
	serve_stop
	echo "   load average $(cut -d' ' -f1-3 /proc/loadavg); medians of the $pg_rounds rounds:"

	echo "PostgreSQL: one connection, one event per request (for scale): p50 ack $(fmedian "${o_p50[@]}") ms, p99 $(fmedian "${o_p99[@]}") ms; libpq alone, one row per commit: p50 $(fmedian "${o_raw[@]}") ms = $(fratio "$(fmedian "${o_p50[@]}")" "$(fmedian "${o_raw[@]}")")x its p50"

	m_rps=$(fmedian "${c_rps[@]}") m_p99=$(fmedian "${c_p99[@]}") m_raw=$(fmedian "${c_raw[@]}")
	ok=0
	ge "$m_rps" 10000 && le "$m_p99" 25 && ok=1
	echo "PostgreSQL: 64 connections, one event per request: $m_rps requests/s at p99 ack $m_p99 ms (target >= 10000 requests/s at p99 <= 25 ms), p50 $(fmedian "${c_p50[@]}") ms; libpq alone, COPY in commits of the same size: $m_raw rows/s = $(fratio "$m_raw" "$m_rps")x its time$(verdict $ok)"

	m_eps=$(fmedian "${n_eps[@]}") m_raw=$(fmedian "${n_raw[@]}")
	ok=0
	ge "$m_eps" 150000 && ok=1
	echo "PostgreSQL: 100-event NDJSON requests ($nd_conns connections): $m_eps events/s (target >= 150000 events/s), p99 ack $(fmedian "${n_p99[@]}") ms; libpq alone, COPY in commits of the same size: $m_raw rows/s = $(fratio "$m_raw" "$m_eps")x its time$(verdict $ok)"
}

bench_pg_live() {
	local dir=$out/pg_live bin=$out/live_chain secs=${BENCH_PG_LIVE_SECONDS:-10}
	local rate=${BENCH_LIVE_RATE:-10000} r p99s=() p50s=() raw_p99s=() m_p99 m_raw ok
	echo
	echo "== PostgreSQL: live chain bronze -> silver -> gold (bench/live_chain.c) at $rate events/s in batches of 100 for $secs s; libpq alone: the chain's statements back to back (raw_ingest_pg lag)"
	pg_start || return
	build_program live_chain
	build_raw_pg raw_ingest_pg
	write_live_project "$dir"
	pg_project "$dir"
	echo "   $pg_rounds rounds, each on fresh databases bench_live and bench_live_raw; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	for ((r = 1; r <= pg_rounds; r++)); do
		echo "   round $r:"
		pg_db bench_live || return
		export SLUICE_BENCH_PG=$db_dsn
		timed "$bin" "$dir" "$secs" "$rate" 100 || {
			show_failure "live_chain failed"
			return
		}
		sed 's/^/     /' "$out/last.log"
		p50s+=("$(sed -n 's/^chain at .* p50 lag \([0-9]*\) ms.*/\1/p' "$out/last.log")")
		p99s+=("$(sed -n 's/^chain at .* p99 lag \([0-9]*\) ms.*/\1/p' "$out/last.log")")
		pg_db bench_live_raw || return
		timed "$out/raw_ingest_pg" lag "$db_dsn" "$secs" "$rate" 100 || {
			show_failure "raw_ingest_pg lag failed"
			return
		}
		sed 's/^raw_ingest_pg: /     libpq alone: /' "$out/last.log"
		raw_p99s+=("$(raw_field p99)")
	done
	m_p99=$(fmedian "${p99s[@]}") m_raw=$(fmedian "${raw_p99s[@]}")
	ok=0
	le "$m_p99" 450 && ok=1

	# for scale: the same chain behind sluice serve, whose rows get their
	# sequence as they land (live_chain's writer announces rows already
	# inserted, which stamps them with an UPDATE of the landing table)
	echo "   for scale, once: the same chain behind sluice serve's webhook source, fed by post_load at $rate events/s in requests of 100 over 16 connections (database bench_live_serve)"
	pg_db bench_live_serve || return
	export SLUICE_BENCH_PG=$db_dsn
	start_project "$dir" || return
	if ! post_load "$dir" --events $((secs * rate)) --batch 100 --conns 16 --rate "$rate" \
		--accounts 500 --lag-model gold.accounts --lag-poll 20; then
		show_failure "post_load failed"
		serve_stop
		return
	fi
	serve_stop
	sed -n '1,2s/^post_load: /     /p' "$out/last.log"

	echo "   load average $(cut -d' ' -f1-3 /proc/loadavg); medians of the $pg_rounds rounds:"
	echo "PostgreSQL: live chain behind sluice serve at $rate events/s (for scale): lag from acknowledgement to gold p99 $(field "lag p99") ms, $(field events/s) events/s acknowledged"
	echo "PostgreSQL: live chain at $rate events/s in batches of 100: p99 lag $m_p99 ms (target <= debounce 50 ms + 400 ms), p50 $(fmedian "${p50s[@]}") ms; libpq alone, the chain's statements back to back: p99 $m_raw ms = $(fratio "$m_p99" "$m_raw")x$(verdict $ok)"
}

bench_pg_ivm() {
	echo
	echo "== PostgreSQL: maintained aggregates: counted refreshes by 10, 1000 and 100000 groups over a $ivm_rows-row live merge model (bench/ivm.c), against a rebuild of the same GROUP BY"
	pg_start || return
	build_program ivm
	# the statements' side takes the database made, the runner's side a
	# copy of it (two databases of 10M orders are what the disk must hold)
	pg_db bench_ivm_sql || return
	export SLUICE_BENCH_PG_SQL=$db_dsn
	write_ivm_project "$out/pg_ivm_sql" "{type: postgres, dsn_env: SLUICE_BENCH_PG_SQL}"
	timed "$out/ivm" init "$out/pg_ivm_sql" "$ivm_rows" || {
		show_failure "ivm init failed"
		return
	}
	sed 's/^/   /' "$out/last.log"
	psql "$db_dsn" -qAtX -c "VACUUM (FREEZE, ANALYZE)" >"$out/last.log" 2>&1 || {
		show_failure "cannot vacuum bench_ivm_sql"
		return
	}
	echo "   made in $(secs "$elapsed") s in the database bench_ivm_sql (then VACUUM (FREEZE, ANALYZE)); the runner's side a copy of it: bench_ivm_runner"
	pg_db bench_ivm_runner bench_ivm_sql || return
	export SLUICE_BENCH_PG_RUNNER=$db_dsn
	write_ivm_project "$out/pg_ivm_runner" "{type: postgres, dsn_env: SLUICE_BENCH_PG_RUNNER}"
	ivm_run "$out/pg_ivm_sql" "$out/pg_ivm_runner"
}

# ------------------------------------------------ postgres_cdc consumer
#
# sluice's logical-replication consumer against PostgreSQL's own client
# (pg_recvlogical) and a bare pgoutput receiver (in bench/cdc_latency.c),
# each reading the same WAL from a slot of its own made at the same point.
# The source database is on the throwaway server of the PostgreSQL
# benchmarks (tests/pg_server.sh runs it with wal_level logical).

pgcdc_rounds=${BENCH_PGCDC_ROUNDS:-3}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)

# src_sql ARGS...: psql on the source database $src_dsn
src_sql() { PGOPTIONS="-c client_min_messages=warning" psql "$src_dsn" -qAtX -v ON_ERROR_STOP=1 "$@"; }

# src_slots NAME...: pgoutput slots made now on the source database
src_slots() {
	local n
	for n; do
		src_sql -c "SELECT 1 FROM pg_create_logical_replication_slot('$n', 'pgoutput')" \
			>"$out/last.log" 2>&1 || {
			show_failure "cannot make the slot $n"
			return 1
		}
	done
}

# src_drop_slots: every slot of the source database dropped (none in use)
src_drop_slots() {
	src_sql -c "SELECT count(pg_drop_replication_slot(slot_name)) FROM pg_replication_slots
		WHERE database = current_database()" >/dev/null
}

# src_server: the source databases' server, once, on a server of its own
# (started after the warehouse's, stopped with it): nothing a consumer
# writes into a PostgreSQL warehouse adds to the WAL that every consumer
# of a slot then reads past. Its TCP connection string (loopback, a
# password from a passfile) in $src_pg_tcp_dsn. Or the server
# BENCH_PGCDC_SOURCE_DSN names, read only the way that names.
src_server() {
	[[ -n $src_pg_dsn ]] && return 0
	if [[ -n ${BENCH_PGCDC_SOURCE_DSN:-} ]]; then
		src_pg_dsn=$BENCH_PGCDC_SOURCE_DSN
		return 0
	fi
	new_server src tcp || return 1
	src_dir=$server_dir
	src_pg_dsn=$(sed -n 1p <<<"$server_dsns")
	src_pg_tcp_dsn=$(sed -n 2p <<<"$server_dsns")
}

# pgcdc_source NAME: the database NAME made afresh on the source's server,
# its connection string in $src_dsn and $SLUICE_BENCH_CDC_SRC
pgcdc_source() {
	src_server || return 1
	src_dsn="$src_pg_dsn dbname=$1"
	[[ -n $(psql "$src_pg_dsn" -qAtX -c "SELECT 1 FROM pg_database WHERE datname = '$1'") ]] &&
		src_drop_slots
	db_on "$src_pg_dsn" "$1" || return 1
	[[ -n $src_dir ]] || src_dbs+=("$1")
	export SLUICE_BENCH_CDC_SRC=$src_dsn
}

# pgcdc_workload CHANGES SIZES: at least CHANGES changes committed into
# public.orders and public.order_items, in transactions whose sizes cycle
# through SIZES ("1, 2, 5"); of a transaction of n changes, n/5 delete the
# oldest orders (and their items), n/4 update the orders after those, the
# rest insert new orders and an item for every second one. Sets
# $work_changes and $work_txns (counted with ROW_COUNT) and $work_secs.
pgcdc_workload() {
	local line
	timed src_sql -c "DO \$\$
DECLARE
	sizes int[] := ARRAY[$2];
	total bigint := 0; txns int := 0; n int; ins int; upd int; del int; c bigint;
	next_id bigint := 1; low bigint := 1;
BEGIN
	WHILE total < $1 LOOP
		n := sizes[1 + txns % array_length(sizes, 1)];
		del := n / 5; upd := n / 4;
		IF next_id - low < 2 * (del + upd) THEN del := 0; upd := 0; END IF;
		ins := n - del - upd;
		INSERT INTO orders SELECT next_id + g, 'customer ' || ((next_id + g) % 997),
			((next_id + g) % 100000) / 100.0, 'new', 'order ' || (next_id + g), now()
		FROM generate_series(0, (ins + 1) / 2 - 1) g;
		GET DIAGNOSTICS c = ROW_COUNT; total := total + c;
		INSERT INTO order_items SELECT next_id + g, 1, 'sku-' || ((next_id + g) % 5000),
			1 + g % 7, ((next_id + g) % 10000) / 100.0
		FROM generate_series(0, ins / 2 - 1) g;
		GET DIAGNOSTICS c = ROW_COUNT; total := total + c;
		next_id := next_id + (ins + 1) / 2;
		UPDATE orders SET status = 'paid', amount = amount + 1, updated_at = now()
		WHERE id >= low + del AND id < low + del + upd;
		GET DIAGNOSTICS c = ROW_COUNT; total := total + c;
		DELETE FROM order_items WHERE order_id >= low AND order_id < low + del;
		GET DIAGNOSTICS c = ROW_COUNT; total := total + c;
		DELETE FROM orders WHERE id >= low AND id < low + del;
		GET DIAGNOSTICS c = ROW_COUNT; total := total + c;
		low := low + del;
		txns := txns + 1;
		COMMIT;
	END LOOP;
	RAISE WARNING 'workload: % changes in % transactions', total, txns;
END \$\$" || {
		show_failure "the workload failed"
		return 1
	}
	line=$(sed -n 's/.*workload: \([0-9]*\) changes in \([0-9]*\) transactions.*/\1 \2/p' "$out/last.log")
	read -r work_changes work_txns <<<"$line"
	work_secs=$(secs "$elapsed")
	[[ -n $work_txns ]] || {
		show_failure "the workload did not say what it made"
		return 1
	}
}

write_pgcdc_land_project() { # write_pgcdc_land_project DIR SLOT
	rm -rf "$1"
	mkdir -p "$1/models/silver"
	cat >"$1/sluice.yml" <<YML
name: cdcland
sources:
  orders: {kind: postgres_cdc, dsn_env: SLUICE_BENCH_CDC_SRC, slot: $2, publication: bench_land, snapshot: never}
  items: {kind: postgres_cdc, dsn_env: SLUICE_BENCH_CDC_SRC, slot: $2, publication: bench_land, snapshot: never, table: public.order_items}
YML
	# a project needs a model; a view costs the consumer nothing
	cat >"$1/models/silver/orders.sql" <<'SQL'
@config materialized=view
SELECT op, lsn, payload FROM landing.orders
SQL
}

# pgcdc_land_run SIDE SLOT: one timed run ($elapsed) from SLOT of SIDE:
# duckdb or postgres (sluice cdc orders --once into that warehouse, which
# must land exactly the workload) or raw (pg_recvlogical up to $endpos)
pgcdc_land_run() {
	local side=$1 slot=$2 dir=$out/pgcdc_land_$1 want
	if [[ $side == raw ]]; then
		sync
		timed "$pgbin/pg_recvlogical" -d "$SLUICE_BENCH_CDC_SRC" -S "$slot" --start -o proto_version=1 \
			-o publication_names=bench_land -f /dev/null --endpos="$endpos" || {
			show_failure "pg_recvlogical failed"
			return 1
		}
		[[ $(src_sql -c "SELECT confirmed_flush_lsn >= '$endpos' FROM pg_replication_slots
			WHERE slot_name = '$slot'") == t ]] || {
			show_failure "pg_recvlogical stopped before $endpos"
			return 1
		}
		return 0
	fi
	write_pgcdc_land_project "$dir" "$slot"
	if [[ $side == postgres ]]; then
		pg_project "$dir"
		pg_db bench_pgcdc_wh || return 1
		export SLUICE_BENCH_PG=$db_dsn
	fi
	# the warehouse is made first, untimed: _sluice and the landing tables
	"$sluice" run --project "$dir" >"$out/last.log" 2>&1 || {
		show_failure "sluice run failed"
		return 1
	}
	# what the runs before wrote reaches the disk now, not in this one's fsyncs
	sync
	timed "$sluice" cdc orders --once --project "$dir" || {
		show_failure "sluice cdc orders --once failed"
		return 1
	}
	want="$work_txns transactions landed ($work_changes changes), 0 skipped"
	grep -q ": $want" "$out/last.log" || {
		show_failure "sluice cdc did not say: $want"
		return 1
	}
}

# per_sec N NS: N changes in NS nanoseconds, as changes a second
per_sec() { echo $((($1 * 1000000000 + $2 / 2) / $2)); }

# pgcdc_land_rounds TAG SIDES...: $pgcdc_rounds rounds over the workload
# just committed, each run of a side from a slot of its own made before the
# workload (TAG_SIDE_ROUND), the order of the sides turning each round; the
# rates (changes/s) in land_rate_SIDE, printed. Every side reads through
# $SLUICE_BENCH_CDC_SRC.
pgcdc_land_rounds() {
	local tag=$1 r i side
	shift
	local sides=("$@")
	for side in "${sides[@]}" engine; do
		declare -ga "land_rate_$side=()"
	done
	for ((r = 1; r <= pgcdc_rounds; r++)); do
		for ((i = 0; i < ${#sides[@]}; i++)); do
			side=${sides[(i + r - 1) % ${#sides[@]}]}
			local -n rates=land_rate_$side
			pgcdc_land_run "$side" "${tag}_${side}_$r" || return 1
			rates+=("$(per_sec "$work_changes" "$elapsed")")
			unset -n rates
			src_sql -c "SELECT pg_drop_replication_slot('${tag}_${side}_$r')" >/dev/null
			[[ $side == duckdb ]] || continue
			# the engine alone lands what sluice landed, the same way
			sync
			"$out/raw_cdc_land" "$out/pgcdc_land_duckdb/warehouse.duckdb" \
				"$out/pgcdc_land_engine.duckdb" >"$out/last.log" 2>&1 || {
				show_failure "raw_cdc_land failed"
				return 1
			}
			land_rate_engine+=("$(sed -n 's/.* \([0-9]*\) changes\/s.*/\1/p' "$out/last.log")")
		done
	done
	for side in "${sides[@]}" engine; do
		local -n rates=land_rate_$side
		printf '   %-28s %s\n' "$side runs (changes/s):" "${rates[*]}"
		unset -n rates
	done
}

bench_pgcdc_land() {
	local changes=${BENCH_PGCDC_CHANGES:-200000} sizes=${BENCH_PGCDC_SIZES:-1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}
	local large=${BENCH_PGCDC_LARGE:-1} r side via slots med_d med_p med_r med_e ok what
	local vias=(unix tcp) way
	echo
	echo "== postgres_cdc landing rate: sluice cdc --once into DuckDB and into PostgreSQL vs pg_recvlogical (pgoutput, to /dev/null), the same WAL from slots made at the same point"
	pg_start || return
	[[ -x $pgbin/pg_recvlogical ]] || {
		echo "  FAILED: no pg_recvlogical in $pgbin"
		failed=1
		return
	}
	cc -std=c11 -O2 -Wall -Wextra -I"$duckdb/include" bench/raw_cdc_land.c -L"$duckdb/lib" \
		-Wl,-rpath,"$duckdb/lib" -lduckdb -o "$out/raw_cdc_land" || die "cannot build bench/raw_cdc_land.c"
	pgcdc_source bench_pgcdc_src || return
	src_sql -c "CREATE TABLE orders (id bigint PRIMARY KEY, customer text NOT NULL,
			amount numeric(12,2), status text, note text, updated_at timestamptz)" \
		-c "CREATE TABLE order_items (order_id bigint, line int, sku text, qty int,
			price numeric(10,2), PRIMARY KEY (order_id, line))" \
		-c "CREATE PUBLICATION bench_land FOR TABLE orders, order_items" >"$out/last.log" 2>&1 || {
		show_failure "cannot make the source tables"
		return
	}
	[[ -n ${BENCH_PGCDC_SOURCE_DSN:-} ]] && vias=(given)
	slots=()
	for via in "${vias[@]}"; do
		for ((r = 1; r <= pgcdc_rounds; r++)); do
			for side in duckdb postgres raw; do slots+=("${via}_${side}_$r"); done
		done
	done
	src_slots "${slots[@]}" || return
	pgcdc_workload "$changes" "$sizes" || return
	endpos=$(src_sql -c "SELECT pg_current_wal_lsn()")
	echo "   source: database bench_pgcdc_src, tables orders and order_items; $work_changes changes in $work_txns transactions of $sizes changes in turn (inserts, updates, deletes), committed in $work_secs s before the runs, up to LSN $endpos; $pgcdc_rounds rounds, each side from a slot of its own; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	what="$work_changes changes in $work_txns source transactions of $sizes changes"
	# The unix socket is the cheapest way to the server: the WAL sender's
	# decoding alone bounds pg_recvlogical. Over TCP each message it sends
	# costs it more, and on loopback it also pays the kernel's receiving
	# of it, as no server on another machine does.
	for via in "${vias[@]}"; do
		way="over $via"
		export SLUICE_BENCH_CDC_SRC=$src_dsn
		case $via in
		given)
			way="from BENCH_PGCDC_SOURCE_DSN's server"
			echo "   from the server BENCH_PGCDC_SOURCE_DSN names:"
			;;
		unix) echo "   over the server's unix socket:" ;;
		tcp)
			export SLUICE_BENCH_CDC_SRC="$src_pg_tcp_dsn dbname=bench_pgcdc_src"
			echo "   over loopback TCP (127.0.0.1, scram-sha-256), as a consumer on another machine connects:"
			;;
		esac
		pgcdc_land_rounds "$via" duckdb postgres raw || return
		med_d=$(median "${land_rate_duckdb[@]}") med_p=$(median "${land_rate_postgres[@]}")
		med_r=$(median "${land_rate_raw[@]}") med_e=$(median "${land_rate_engine[@]}")
		echo "   load average $(cut -d' ' -f1-3 /proc/loadavg); the engine alone (bench/raw_cdc_land.c) landed the rows sluice landed into DuckDB again, commit by commit as sluice made them: $med_e changes/s, which sluice takes $(ratio "$med_e" "$med_d")x the time of"
		ok=$((med_d * 100 >= med_r * 80 && med_d >= 50000))
		echo "postgres_cdc landing $way, $what: sluice cdc --once into DuckDB $med_d changes/s vs pg_recvlogical $med_r changes/s = $(ratio "$med_d" "$med_r")x its rate (target >= 0.80x and >= 50000 changes/s)$(verdict $ok)"
		ok=$((med_p * 100 >= med_r * 80 && med_p >= 50000))
		echo "postgres_cdc landing $way, $what: sluice cdc --once into PostgreSQL $med_p changes/s vs pg_recvlogical $med_r changes/s = $(ratio "$med_p" "$med_r")x its rate (target >= 0.80x and >= 50000 changes/s)$(verdict $ok)"
	done
	export SLUICE_BENCH_CDC_SRC=$src_dsn

	((large)) || return 0
	# for scale: the per-change cost alone, in transactions of 1000
	src_drop_slots
	src_sql -c "TRUNCATE orders, order_items" >/dev/null || return
	local pgcdc_rounds=1
	src_slots big_duckdb_1 big_raw_1 || return
	pgcdc_workload "$changes" 1000 || return
	endpos=$(src_sql -c "SELECT pg_current_wal_lsn()")
	echo "   for scale, once: $work_changes changes in $work_txns transactions of 1000 (committed in $work_secs s)"
	pgcdc_land_rounds big duckdb raw || return
	echo "postgres_cdc landing, $work_changes changes in transactions of 1000 (for scale): sluice cdc --once into DuckDB ${land_rate_duckdb[0]} changes/s vs pg_recvlogical ${land_rate_raw[0]} changes/s = $(ratio "${land_rate_duckdb[0]}" "${land_rate_raw[0]}")x its rate; the engine alone landing the same: ${land_rate_engine[0]} changes/s"
	src_drop_slots
}

# ---------------------------------------------------- postgres_cdc latency

write_pgcdc_latency_project() { # write_pgcdc_latency_project DIR SLOT
	rm -rf "$1"
	mkdir -p "$1/models/silver"
	cat >"$1/sluice.yml" <<YML
name: cdclatency
sources:
  lat: {kind: postgres_cdc, dsn_env: SLUICE_BENCH_CDC_SRC, slot: $2, publication: bench_lat, snapshot: never}
live: {debounce: 50ms, max_latency: 100ms, min_interval: 0}
YML
	cat >"$1/models/silver/lat.sql" <<'SQL'
-- the source table, kept live by applying its change events
@config materialized=incremental, live=true, incremental_strategy=merge, unique_key=id,
        cdc_op=op, cdc_seq=lsn, incremental_filter=WHERE _sluice_seq > {watermark}
SELECT CAST(payload->>'id' AS BIGINT) AS id, CAST(payload->>'txn' AS BIGINT) AS txn,
       CAST(payload->>'amount' AS BIGINT) AS amount, op, lsn, _sluice_seq
FROM landing.lat
SQL
}

# pgcdc_latency_run MODE [postgres]: the table, its publication and two
# slots made afresh, then the consumer (MODE cdc: sluice cdc lat; serve:
# sluice serve, whose live model silver.lat cdc_latency watches) against
# the generator; its lines in $out/last.log and printed
pgcdc_latency_run() {
	local mode=$1 wh=${2:-duckdb} dir=$out/pgcdc_latency tool=$root/build/release/bench/cdc_latency
	local url args=() i dump
	src_drop_slots
	src_sql -c "DROP TABLE IF EXISTS lat" -c "DROP PUBLICATION IF EXISTS bench_lat" \
		-c "CREATE TABLE lat (id bigint PRIMARY KEY, txn bigint, amount bigint, note text)" \
		-c "CREATE PUBLICATION bench_lat FOR TABLE lat" >"$out/last.log" 2>&1 || {
		show_failure "cannot make the source table"
		return 1
	}
	src_slots lat_sluice lat_raw || return 1
	write_pgcdc_latency_project "$dir" lat_sluice
	if [[ $wh == postgres ]]; then
		pg_project "$dir"
		pg_db bench_pgcdc_lat_wh || return 1
		export SLUICE_BENCH_PG=$db_dsn
	fi
	"$sluice" run --project "$dir" >"$out/last.log" 2>&1 || {
		show_failure "sluice run failed"
		return 1
	}
	if [[ $mode == serve ]]; then
		serve_start "$dir" || {
			cp "$dir/serve.log" "$out/last.log"
			show_failure "sluice serve did not start"
			return 1
		}
		cdc_pid=$serve_pid
		url=$(sed -n 's/.*"url": "\([^"]*\)".*/\1/p' "$dir/.sluice/server.json")
		args=(--status "$url" --model silver.lat)
	else
		"$sluice" cdc lat --project "$dir" >"$dir/cdc.log" 2>&1 &
		cdc_pid=$!
	fi
	# the consumer streams once the server shows its slot in use
	for i in $(seq 400); do
		[[ $(src_sql -c "SELECT active FROM pg_replication_slots WHERE slot_name = 'lat_sluice'") == t ]] && break
		sleep 0.025
	done
	dump=$out/pgcdc_latency_$mode-$wh-$lat_txn.txt
	[[ $mode == serve ]] && args+=(--timeline "$out/pgcdc_covered_$lat_txn.txt")
	timed "$tool" --dsn "$src_dsn" --table lat --slot lat_sluice --raw-slot lat_raw \
		--publication bench_lat --seconds "$lat_secs" --rate "$lat_rate" --txn "$lat_txn" \
		--dump "$dump" "${args[@]}"
	i=$?
	cp "$out/last.log" "$out/pgcdc_latency.log"
	kill -TERM "$cdc_pid" 2>/dev/null
	wait "$cdc_pid" 2>/dev/null
	cdc_pid=
	cp "$out/pgcdc_latency.log" "$out/last.log"
	if ((i)); then
		show_failure "cdc_latency failed"
		return 1
	fi
	[[ $mode == serve ]] && { pgcdc_covered "$dir" "$dump" "$out/pgcdc_covered_$lat_txn.txt" || return 1; }
	sed 's/^cdc_latency: /   /' "$out/last.log"
}

# pgcdc_covered DIR DUMP TIMELINE: the line "cdc_latency: commit to covered:
# ..." added to $out/last.log (and $out/pgcdc_latency.log). Each source
# transaction of the run (DUMP: its number and commit time) is covered
# once the model's covered sequence (TIMELINE: when it reached what) is at
# its landing sequence, read from the landing table of DIR's warehouse now
# that sluice serve stopped; each must have landed with one sequence.
pgcdc_covered() {
	local seqs=$out/pgcdc_covered_seqs.txt stop line
	"$sluice" sql --json "SELECT CAST(payload->>'txn' AS BIGINT) AS k, min(_sluice_seq) AS s, count(DISTINCT _sluice_seq) AS n FROM landing.lat WHERE op IN ('c', 'u') AND CAST(payload->>'txn' AS BIGINT) > 0 GROUP BY 1 ORDER BY 1" --project "$1" 2>"$out/sql.log" |
		jq -r '.[] | "\(.k) \(.s) \(.n)"' >"$seqs"
	[[ $(wc -l <"$seqs") == "$(wc -l <"$2")" && -z $(awk '$3 != 1' "$seqs") ]] || {
		echo "  FAILED: not every transaction landed with one sequence ($(wc -l <"$seqs") of $(wc -l <"$2"); see $seqs)"
		failed=1
		return 1
	}
	stop=$(sed -n 's/.*last covered [0-9]*, \([0-9.]*\) ms after the first commit.*/\1/p' "$out/pgcdc_latency.log")
	line=$(awk -v stop="${stop:-0}" '
		FILENAME == ARGV[1] { seq[$1] = $2; next }
		FILENAME == ARGV[2] { t[++nt] = $1; v[nt] = $2; next }
		{
			while (i < nt && v[i + 1] < seq[$1]) i++
			if (i < nt) print t[i + 1] - $2; else { print stop - $2; missing++ }
		}
		END { print "missing", missing + 0 }' "$seqs" "$3" "$2" | sort -g |
		awk '$1 == "missing" { missing = $2; next } { v[n++] = $1 }
			END { printf "p50 %.1f ms, p99 %.1f ms, max %.1f ms over %d transactions%s", v[int(n / 2)], v[int(n * 99 / 100)], v[n - 1], n, missing ? ", " missing " not there by the end (counted until then)" : "" }')
	line="cdc_latency: commit to covered: $line (silver.lat, each transaction's landing sequence from the landing table)"
	echo "$line" >>"$out/pgcdc_latency.log"
	cp "$out/pgcdc_latency.log" "$out/last.log"
}

# lat_field MEASURE NAME: a figure (p50, p99, max) of a cdc_latency line in
# $out/last.log ("commit to landed", "the engine alone, commit to confirmed")
lat_field() { sed -n "s|^cdc_latency: $1: .*\\b$2 \\([0-9.]*\\) ms.*|\\1|p" "$out/last.log"; }

bench_pgcdc_latency() {
	local lat_secs=${BENCH_PGCDC_LATENCY_SECONDS:-20} lat_rate=${BENCH_PGCDC_RATE:-10000}
	local lat_txn=${BENCH_PGCDC_TXN:-100} whs=${BENCH_PGCDC_LATENCY_WAREHOUSES:-duckdb}
	local scale_txn=${BENCH_PGCDC_SCALE_TXN:-1000} scale_secs=${BENCH_PGCDC_SCALE_SECONDS:-10}
	local wh p50 p99 raw50 raw99 m50 m99 ok
	echo
	echo "== postgres_cdc latency: $lat_rate changes/s in transactions of $lat_txn for $lat_secs s, committed by bench/cdc_latency.c, from each COMMIT to landed (its slot confirmed), against a bare pgoutput receiver on a second slot; then under sluice serve to a live CDC model"
	[[ -x $root/build/release/bench/cdc_latency ]] || die "no build/release/bench/cdc_latency (run make bench)"
	pg_start || return
	pgcdc_source bench_pgcdc_lat_src || return
	for wh in $whs; do
		echo "   sluice cdc lat into $wh (load average $(cut -d' ' -f1-3 /proc/loadavg)):"
		pgcdc_latency_run cdc "$wh" || return
		p50=$(lat_field "commit to landed" p50) p99=$(lat_field "commit to landed" p99)
		raw50=$(lat_field "the engine alone, commit to confirmed" p50)
		raw99=$(lat_field "the engine alone, commit to confirmed" p99)
		ok=0
		le "${p99:-1e9}" 100 && ok=1
		echo "postgres_cdc latency at $lat_rate changes/s in transactions of $lat_txn, sluice cdc into $wh: commit to landed p50 $p50 ms, p99 $p99 ms (target <= 100 ms); the engine alone, a bare receiver's confirmation: p50 $raw50 ms, p99 $raw99 ms = $(fratio "$p99" "$raw99")x its p99$(verdict $ok)"
	done
	echo "   sluice serve (load average $(cut -d' ' -f1-3 /proc/loadavg)):"
	pgcdc_latency_run serve || return
	p50=$(lat_field "commit to landed" p50) p99=$(lat_field "commit to landed" p99)
	raw99=$(lat_field "the engine alone, commit to confirmed" p99)
	m50=$(lat_field "commit to covered" p50) m99=$(lat_field "commit to covered" p99)
	ok=0
	le "${p99:-1e9}" 100 && ok=1
	echo "postgres_cdc latency at $lat_rate changes/s in transactions of $lat_txn, sluice serve into duckdb: commit to landed p50 $p50 ms, p99 $p99 ms (target <= 100 ms); the engine alone: p99 $raw99 ms = $(fratio "$p99" "$raw99")x its p99$(verdict $ok)"
	ok=0
	le "${m99:-1e9}" 300 && ok=1
	echo "postgres_cdc latency at $lat_rate changes/s in transactions of $lat_txn, sluice serve into duckdb: commit to the live CDC model covering it p50 $m50 ms, p99 $m99 ms (target <= debounce 50 ms + 250 ms); the engine alone: p99 $raw99 ms = $(fratio "$m99" "$raw99")x its p99$(verdict $ok)"
	if ((scale_txn)); then
		# for scale: the same rate in a tenth of the transactions
		lat_txn=$scale_txn lat_secs=$scale_secs
		echo "   for scale, sluice serve at $lat_rate changes/s in transactions of $lat_txn for $lat_secs s (load average $(cut -d' ' -f1-3 /proc/loadavg)):"
		pgcdc_latency_run serve || return
		echo "postgres_cdc latency at $lat_rate changes/s in transactions of $lat_txn (for scale), sluice serve into duckdb: commit to landed p50 $(lat_field "commit to landed" p50) ms, p99 $(lat_field "commit to landed" p99) ms; to the live CDC model p50 $(lat_field "commit to covered" p50) ms, p99 $(lat_field "commit to covered" p99) ms; the engine alone: p99 $(lat_field "the engine alone, commit to confirmed" p99) ms"
	fi
	src_drop_slots
}

[[ -z $only || $only == plan ]] && bench_plan
[[ -z $only || $only == lineage ]] && bench_lineage
[[ -z $only || $only == chain ]] && bench_chain
[[ -z $only || $only == replay ]] && bench_replay
[[ -z $only || $only == windows ]] && bench_windows
[[ -z $only || $only == live ]] && bench_live
[[ -z $only || $only == layout ]] && bench_layout
[[ -z $only || $only == ui ]] && bench_ui
[[ -z $only || $only == cdc ]] && bench_cdc
[[ -z $only || $only == ivm ]] && bench_ivm
[[ -z $only || $only == ingest ]] && bench_ingest
[[ -z $only || $only == kafka ]] && bench_kafka
[[ -z $only || $only == pg || $only == pg-chain ]] && bench_pg_chain
[[ -z $only || $only == pg || $only == pg-ingest ]] && bench_pg_ingest
[[ -z $only || $only == pg || $only == pg-live ]] && bench_pg_live
[[ -z $only || $only == pg || $only == pg-ivm ]] && bench_pg_ivm
[[ -z $only || $only == pgcdc || $only == pgcdc-land ]] && bench_pgcdc_land
[[ -z $only || $only == pgcdc || $only == pgcdc-latency ]] && bench_pgcdc_latency
exit $failed
