# Mistakes in sluice.yml: each is reported as file:line:col with a hint,
# every problem of the file at once, and no command creates or changes
# anything while the settings are broken.
# the settings fixed: the project's name, and on PostgreSQL its warehouse
fixed_settings() {
	echo "name: shop" >sluice.yml
	! is_postgres || echo "warehouse: {type: postgres, dsn_env: SLUICE_E2E_PG}" >>sluice.yml
}
show() {
	echo "--- $1"
	cat -n "$1"
}
# validate, not normalized: its hints quote durations like 200ms
check() {
	echo "\$ sluice validate"
	"$SLUICE_BIN" validate 2>&1
	echo "[exit $?]"
}
cd shop

note malformed YAML: an unclosed flow mapping
cat >sluice.yml <<'YML'
name: shop
sources:
  orders: {kind: webhook, columns: {id: BIGINT}
  rates: {kind: poll, url: "http://127.0.0.1:9000/rates"}
YML
show sluice.yml
check
sl run
ls

note a misspelt top-level key
cat >sluice.yml <<'YML'
name: shop
warehous: {type: duckdb, path: warehouse.duckdb}
YML
show sluice.yml
check

note an unknown key nested under live:
cat >sluice.yml <<'YML'
name: shop
live:
  enabled: true
  debounse: 200ms
YML
show sluice.yml
check

note bad durations
cat >sluice.yml <<'YML'
name: shop
live: {debounce: 200ms, max_lag: 5 minutes}
ingest:
  flush_interval: 20
YML
show sluice.yml
check

note a missing name, then a name with no value
cat >sluice.yml <<'YML'
warehouse: {type: duckdb, path: warehouse.duckdb}
YML
show sluice.yml
check
cat >sluice.yml <<'YML'
name:
YML
show sluice.yml
check

note every problem of the file in one report
cat >sluice.yml <<'YML'
name: shop
warehouse: {type: duckbd}
name: again
server: {max_body: 8XB}
sources:
  orders: {kind: webhok}
  rates: {kind: poll}
YML
show sluice.yml
check

note broken settings block the commands that only read, too
sl ls
sl plan
ls

note with the settings fixed the project builds
fixed_settings
sl run
warehouse_saved before.sha

note broken again: a run refuses and the warehouse file is untouched
cat >sluice.yml <<'YML'
name: shop
live: {enabled: maybe}
YML
sl run
fixed_settings
warehouse_unchanged before.sha
q "SELECT name, build_count FROM _sluice.models"

note a duration of 0 where nothing works with it, one over a year, retries
note whose first pause is longer than their cap are refused, the 0s that mean
note none or at once pass
cat >sluice.yml <<'YML'
name: shop
live:
  poll_interval: 0
  min_interval: 0
  debounce: 0
  assertion_interval: 0
  backoff_base: 10m
  backoff_max: 1m
  profile_interval: 400d
server: {idle_timeout: 0, max_body: 0B}
ingest: {flush_interval: 0}
sources:
  rates: {kind: poll, url: "http://127.0.0.1:9000/rates", interval: 0}
YML
! is_postgres || echo "warehouse: {type: postgres, dsn_env: SLUICE_E2E_PG}" >>sluice.yml
show sluice.yml
check
sl live --once
warehouse_unchanged before.sha
