# Problems the first round of checks did not catch, and what a failed
# command must not do.
# the schemas a PostgreSQL warehouse holds, or the files of a folder of a
# DuckDB one
made() {
	if is_postgres; then
		q "SELECT schema_name FROM information_schema.schemata WHERE schema_name NOT LIKE 'pg\_%' AND schema_name NOT IN ('public', 'information_schema') ORDER BY 1"
	else
		ls "$1" 2>&1
	fi
}
cd p
note every problem at once: header, query, reference
sl validate
note a failed run creates no warehouse
sl run
made data
note fixed models, then a build-time error names the model
cat > models/s/a.sql <<'SQL'
@config materialized=table
SELECT 1 AS id, no_such_column
SQL
rm models/s/b.sql models/s/c.sql
sl run
note the warehouse folder is created on the first write
made data/wh
note tags from the folder add to the tags of the model
sl ls -s tag:folder
sl ls -s tag:own
note selectors and arguments
sl run -s ''
sl ls -s 'gol.*'
sl ls gold.g
sl compile gold.gg
sl sql "selec 1"
