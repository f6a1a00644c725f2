# Every materialization against tables written outside the project.
"$SLUICE_BIN" sql "CREATE SCHEMA raw; CREATE TABLE raw.events (id INTEGER, account VARCHAR, region VARCHAR, amount INTEGER); INSERT INTO raw.events VALUES (1, 'a', 'eu', 5), (2, 'a', 'eu', 10), (3, 'b', 'us', 20)" >/dev/null
sl run
q "SELECT * FROM silver.events_appended ORDER BY id"
q "SELECT * FROM silver.accounts_merged ORDER BY account, region"
q "SELECT * FROM silver.region_totals ORDER BY region"
q "SELECT * FROM gold.big_by_region"
q "SELECT * FROM gold.events_view"
q "SELECT * FROM silver.events_self ORDER BY id"
q "SELECT account, amount, valid_from IS NOT NULL AS dated, valid_to FROM silver.account_history ORDER BY account, valid_from"
q "SELECT * FROM gold.region_labels ORDER BY region"
q "SELECT table_schema, table_name, table_type FROM information_schema.tables WHERE table_schema NOT IN ('_sluice', 'raw', 'information_schema', 'pg_catalog') ORDER BY 1, 2"

note new rows arrive: incremental models apply only them
"$SLUICE_BIN" sql "INSERT INTO raw.events VALUES (4, 'a', 'eu', 1), (5, 'c', 'apac', 30)" >/dev/null
sl run
q "SELECT * FROM silver.events_appended ORDER BY id"
q "SELECT * FROM silver.accounts_merged ORDER BY account, region"
q "SELECT * FROM silver.region_totals ORDER BY region"
q "SELECT * FROM gold.big_by_region"
q "SELECT * FROM silver.events_self ORDER BY id"
note the snapshot closes the changed account and opens its new version, and adds the new one
q "SELECT account, amount, valid_to IS NULL AS current FROM silver.account_history ORDER BY account, valid_from"
q "SELECT count(*) AS closed FROM silver.account_history WHERE valid_to IS NOT NULL AND valid_to > valid_from"
q "SELECT * FROM gold.region_labels ORDER BY region"

note compile shows the ephemeral inlined as a CTE and the filter
sl compile gold.big_by_region
sl compile silver.events_appended

note full refresh rebuilds from scratch
sl run --full-refresh -s silver.region_totals
q "SELECT * FROM silver.region_totals ORDER BY region"
note a full refresh keeps the history of a snapshot
sl run --full-refresh -s silver.account_history
q "SELECT count(*) AS versions FROM silver.account_history"
