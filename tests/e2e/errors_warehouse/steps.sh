# A warehouse file that sluice cannot use: one that is not a DuckDB file,
# and one that another process holds. sluice says so and leaves it alone.
# Messages quote the absolute path, so the case folder is shown as <case>.
w() {
	sl "$@" | sed -e "s|$PWD|<case>|g" -e "s|$SLUICE_TOOLS/||g" -e 's/PID [0-9]*/PID <pid>/'
}
cd shop

note warehouse.duckdb holds text, not a database
echo "my shopping list: eggs, milk" >warehouse.duckdb
sha256sum warehouse.duckdb >before.sha
w run
w validate
w plan
w sql "SELECT 1"
sha256sum -c before.sha
cat warehouse.duckdb

note without the stray file the project builds
rm warehouse.duckdb
w run

note another process holds the warehouse
hold_warehouse warehouse.duckdb
w run
w sql "SELECT count(*) FROM shop.orders"

note the holder lets go: sluice works again
release_warehouse
w run
q "SELECT model, status FROM _sluice.run_log ORDER BY run_id, model"
