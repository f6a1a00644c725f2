/*
 * The raw engine beside `sluice plan` on a project of many windows: the
 * same window rows read through DuckDB's C API, every value fetched, with
 * nothing of sluice around it. Prints the rows it read.
 *   raw_windows WAREHOUSE
 */
#define RAW_NAME "raw_windows"
#include "raw_duck.h"

int main(int argc, char **argv)
{
	duckdb_database db;
	duckdb_connection conn;
	duckdb_result res;
	idx_t rows = 0;
	long long sum = 0;

	(void)exec; /* the shared helpers' statement runner: one query suffices here */
	if (argc != 2)
		die("usage", "raw_windows WAREHOUSE");
	open_db(argv[1], &db, &conn);
	if (duckdb_query(conn,
			 "SELECT model, status, epoch_ms(since), epoch_ms(until), epoch_ms(applied_at) "
			 "FROM _sluice.windows WHERE env = '' ORDER BY model, since",
			 &res) != DuckDBSuccess)
		die("query failed", duckdb_result_error(&res));
	for (;;) {
		duckdb_data_chunk chunk = duckdb_fetch_chunk(res);
		idx_t n;

		if (!chunk)
			break;
		n = duckdb_data_chunk_get_size(chunk);
		for (idx_t c = 2; c < 5; c++) {
			int64_t *v = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, c));

			for (idx_t i = 0; i < n; i++)
				sum += v[i] / 1000;
		}
		rows += n;
		duckdb_destroy_data_chunk(&chunk);
	}
	duckdb_destroy_result(&res);
	duckdb_disconnect(&conn);
	duckdb_close(&db);
	printf("%llu rows (%lld)\n", (unsigned long long)rows, sum);
	return 0;
}
