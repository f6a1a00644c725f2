# A source transaction of a million changes lands as one warehouse
# transaction with one sequence, in bounded memory: its changes are
# appended as they arrive, not held until its commit. The consumer's peak
# memory for it stays near that of the initial snapshot of as many rows,
# which is read and appended a batch at a time; holding the transaction
# whole would add its payloads, some 200 MB, on top.
[ -n "${SLUICE_TEST_PG:-}" ] || echo "SLUICE_TEST_PG is not set: tests/run.sh starts the server"
cdc_source e2e_cdc_large_txn_src e2e_cdc_large_txn
src -c "CREATE TABLE big (id INTEGER PRIMARY KEY, v TEXT)" \
	-c "INSERT INTO big SELECT g, repeat(md5(g::text), 4) FROM generate_series(1, 1000000) g"

# peak KB: runs `sluice cdc big --once`, its peak resident memory in KB
# in peak.kb and its summary on stdout
peak() {
	/usr/bin/time -f %M -o peak.kb "$SLUICE_BIN" cdc big --once | sed -E 's#\b[0-9A-F]+/[0-9A-F]+\b#<lsn>#g'
}
# the model against what every row of the source holds
check() {
	sl run | grep -c '^' >/dev/null
	q "SELECT count(*) AS rows, count(*) FILTER (WHERE v = repeat(md5(CAST(id AS VARCHAR)), 4) || '$1') AS as_source FROM silver.big"
	src -c "SELECT 'source rows: ' || count(*) FROM big"
}

note the initial snapshot of a million rows
peak
snapshot_kb=$(cat peak.kb)
check ""
note one source transaction updating every row
src -c "UPDATE big SET v = v || 'x'"
peak
txn_kb=$(cat peak.kb)
q "SELECT op, count(*) AS changes, count(DISTINCT _sluice_seq) AS seqs, min(_sluice_pos) AS first, max(_sluice_pos) AS last FROM landing.big GROUP BY op ORDER BY op"
check x
note its peak memory is within 100 MB of the snapshots
if [ "$txn_kb" -le $((snapshot_kb + 102400)) ]; then
	echo "bounded: yes"
else
	echo "bounded: no (snapshot ${snapshot_kb} KB, transaction ${txn_kb} KB)"
fi
