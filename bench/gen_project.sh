#!/usr/bin/env bash
# Writes a synthetic sluice project of N models (default 2000) into DIR, for
# the load + validate + plan benchmark. Deterministic: the same N gives the
# same files on every machine.
#
#   bench/gen_project.sh DIR [N] [SCHEMAS]
#
# Shape: SCHEMAS schema folders (default 40); model i lives in schema
# s(i mod SCHEMAS), so each schema holds a chain of N/SCHEMAS models. Every
# model reads its predecessor in the chain (the seed for the first of each
# chain) and, by turns, one or two earlier models from anywhere in the graph
# (fan-ins, joins and unions). Materializations rotate: 4 in 10 views, 4 in 10
# tables, 2 in 10 incremental (merge on id with a {this} filter); some models
# carry @assert lines; one schema has a pipeline.yml with defaults. One seed,
# seeds/codes.csv. Every model has the columns (id, k, v, updated_at), so the
# project also runs (`sluice run` builds all of it in about 1.5 min).
set -euo pipefail

dir=${1:?usage: gen_project.sh DIR [N] [SCHEMAS]}
n=${2:-2000}
nschemas=${3:-40}

# only ever replaces a folder this script (or a person) made a project in
if [[ -e $dir && -n "$(ls -A "$dir" 2>/dev/null)" && ! -f $dir/sluice.yml ]]; then
	echo "gen_project.sh: $dir exists and is not a sluice project; not touching it" >&2
	exit 1
fi
rm -rf "$dir"
mkdir -p "$dir/models" "$dir/seeds"
printf 'name: bench_%s\nwarehouse: {type: duckdb, path: warehouse.duckdb}\n' "$n" >"$dir/sluice.yml"

{
	printf 'id,k,v,updated_at\n'
	for ((i = 1; i <= 50; i++)); do
		printf '%d,%d,%d.5,2024-01-%02d 00:00:00\n' "$i" $((i % 7)) $((i * 3)) $((i % 28 + 1))
	done
} >"$dir/seeds/codes.csv"

for ((s = 0; s < nschemas; s++)); do
	mkdir -p "$dir/models/$(printf 's%02d' "$s")"
done
# one folder's defaults come from pipeline.yml, as in a real project
printf '# defaults for every model in s00/\ntags: [bench, s00]\n' >"$dir/models/s00/pipeline.yml"

name_of() { # global index -> schema.model, into $nm
	printf -v nm 's%02d.m%04d' $(($1 % nschemas)) "$1"
}

seed=12345
rnd() { # next pseudo-random number in [0, $1), into $r
	seed=$(((seed * 1103515245 + 12345) % 2147483648))
	r=$(((seed / 65536) % $1))
}

for ((i = 0; i < n; i++)); do
	printf -v schema 's%02d' $((i % nschemas))
	printf -v file '%s/models/%s/m%04d.sql' "$dir" "$schema" "$i"
	if ((i < nschemas)); then
		first=seeds.codes
	else
		name_of $((i - nschemas))
		first=$nm
	fi
	# fan-in: 0, 1 or 2 extra inputs from anywhere earlier
	extra=()
	if ((i >= 2 * nschemas)); then
		rnd 3
		nextra=$r
		for ((e = 0; e < nextra; e++)); do
			rnd $((i - nschemas))
			name_of "$r"
			[[ $nm == "$first" || " ${extra[*]-} " == *" $nm "* ]] || extra+=("$nm")
		done
	fi
	# rotate along each chain too, so no chain is all views (DuckDB inlines
	# views when it binds them: long view-over-view fan-ins get slow to build)
	case $(((i + i / nschemas) % 10)) in
	0 | 3 | 6 | 8) mat=view ;;
	1 | 4 | 7 | 9) mat=table ;;
	*) mat=incremental ;;
	esac
	{
		printf -- '-- generated model %d: %s over %s\n' "$i" "$mat" "$first${extra[*]:+ ${extra[*]}}"
		case $mat in
		view) printf '@config materialized=view\n' ;;
		table) printf '@config materialized=table, description='\''bench table %d'\''\n' "$i" ;;
		incremental)
			printf '@config materialized=incremental, incremental_strategy=merge, unique_key=id,\n'
			printf '        incremental_filter=WHERE updated_at > (SELECT coalesce(max(updated_at), TIMESTAMP '\''1970-01-01'\'') FROM {this})\n'
			;;
		esac
		if ((i % 5 == 1)); then
			printf '@assert not_null(id)\n@assert warn: v >= 0\n'
		fi
		case ${#extra[@]} in
		0)
			printf 'SELECT id, k, v * 1.01 + %d AS v, updated_at\nFROM %s\nWHERE k <> %d\n' \
				$((i % 13)) "$first" $((i % 7))
			;;
		1)
			printf 'SELECT a.id, a.k, a.v + coalesce(b.v, 0) AS v,\n       greatest(a.updated_at, b.updated_at) AS updated_at\n'
			printf 'FROM %s AS a\nLEFT JOIN %s AS b USING (id)\n' "$first" "${extra[0]}"
			;;
		2)
			printf 'WITH u AS (\n    SELECT id, k, v, updated_at FROM %s\n    UNION ALL\n' "$first"
			printf '    SELECT id, k, v, updated_at FROM %s\n    UNION ALL\n' "${extra[0]}"
			printf '    SELECT id, k, v, updated_at FROM %s\n)\n' "${extra[1]}"
			printf 'SELECT id, max(k) AS k, sum(v) AS v, max(updated_at) AS updated_at\nFROM u\nGROUP BY id\n'
			;;
		esac
	} >"$file"
done
