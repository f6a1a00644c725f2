/*
 * Benchmark: upstream contract gates (src/windows/contract.h). Builds the
 * index of an hourly upstream of five years (43,824 windows, a few of them
 * holes, loaded over the last ten days) and checks 100,000 windows against
 * it: hourly and daily, ENCAPSULATE and THROUGH, with a freshness gate of
 * either scope. Then the same ENCAPSULATE checks are answered by DuckDB in
 * one SQL query over the same rows, the raw engine's way of asking the
 * question, and both must find the same windows met.
 *
 *   windows_gate [RUNS]
 *
 * Prints the figure (the median of RUNS timed passes, default 5, after a
 * warm-up) with its target, and the ratio against DuckDB. Exits non-zero
 * when the two sides disagree. Built by bench/run.sh against
 * build/release/libsluice.a and .deps/duckdb.
 */
#define RAW_NAME "windows_gate"
#include "raw_duck.h"

#include "core/units.h"
#include "windows/contract.h"
#include "windows/grid.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define YEARS_FROM "2021-01-01"
#define YEARS_TO "2026-01-01"
#define WINDOWS 100000
#define HOLES 8
#define FRESH (7 * 86400LL)
#define TARGET_MS 100.0

struct check {
	int64_t since, until;
	struct win_contract c;
};

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int64_t instant(const char *s)
{
	int64_t t;

	if (win_time_parse(s, &t))
		die("not an instant", s);
	return t;
}

/* The applied hours of [start, end), but HOLES of them, in grid order. */
static struct win_row *upstream_rows(int64_t start, int64_t end, int64_t now, size_t *n,
				     uint64_t *x)
{
	size_t hours = (size_t)win_count(WIN_HOUR, start, end), k = 0;
	struct win_row *rows = malloc(hours * sizeof(*rows));
	char *hole = calloc(hours, 1);

	if (!rows || !hole)
		die("out of memory", NULL);
	/* in the last year, so that THROUGH is met by most earlier windows */
	for (int i = 0; i < HOLES; i++)
		hole[hours - 1 - next(x) % (365 * 24)] = 1;
	for (size_t h = 0; h < hours; h++) {
		int64_t at = now - (int64_t)(next(x) % (10 * 86400));

		if (hole[h])
			continue;
		rows[k++] = (struct win_row){ win_add(WIN_HOUR, start, (int64_t)h),
					      win_add(WIN_HOUR, start, (int64_t)h + 1), at, at };
	}
	free(hole);
	*n = k;
	return rows;
}

/* Hourly and daily windows over the five years and a little past them,
 * ENCAPSULATE and THROUGH in turn, freshness latest and all at random. */
static void make_checks(struct check *ck, int64_t start, int64_t end, uint64_t *x)
{
	int64_t span = end - start + 7 * 86400;

	for (size_t i = 0; i < WINDOWS; i++) {
		enum win_grain g = next(x) % 2 ? WIN_HOUR : WIN_DAY;
		int64_t t = start + (int64_t)(next(x) % (uint64_t)span);

		ck[i].since = win_floor(g, t);
		ck[i].until = win_add(g, ck[i].since, 1);
		ck[i].c.level = i % 2 ? WIN_THROUGH : WIN_ENCAPSULATE;
		ck[i].c.fresh = FRESH;
		ck[i].c.fresh_all = next(x) % 2;
	}
}

/* One pass over the checks of the given level (-1: all); the verdicts
 * counted into v, the time in microseconds. */
static int64_t pass(const struct win_index *ix, const struct check *ck, int level, int64_t now,
		    long v[4])
{
	int64_t t0 = units_mono_us();

	memset(v, 0, 4 * sizeof(*v));
	for (size_t i = 0; i < WINDOWS; i++)
		if (level < 0 || (int)ck[i].c.level == level)
			v[win_gate(ix, &ck[i].c, ck[i].since, ck[i].until, now, NULL)]++;
	return units_mono_us() - t0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t median(int64_t *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_i64);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static void append_row(duckdb_appender ap, const int64_t *v, int n)
{
	for (int i = 0; i < n; i++)
		if (duckdb_append_int64(ap, v[i]))
			die("cannot append", duckdb_appender_error(ap));
	if (duckdb_appender_end_row(ap))
		die("cannot append", duckdb_appender_error(ap));
}

static void load(duckdb_connection conn, const struct win_row *rows, size_t n,
		 const struct check *ck)
{
	duckdb_appender ap;

	exec(conn, "CREATE TABLE upstream (since BIGINT, until BIGINT, applied_at BIGINT, "
		   "oldest_at BIGINT)");
	exec(conn, "CREATE TABLE windows (id BIGINT, since BIGINT, until BIGINT, fresh BIGINT, "
		   "fresh_all BIGINT)");
	if (duckdb_appender_create(conn, NULL, "upstream", &ap))
		die("cannot make an appender", "upstream");
	for (size_t i = 0; i < n; i++) {
		int64_t v[4] = { rows[i].since, rows[i].until, rows[i].applied_at, rows[i].oldest_at };

		append_row(ap, v, 4);
	}
	duckdb_appender_destroy(&ap);
	if (duckdb_appender_create(conn, NULL, "windows", &ap))
		die("cannot make an appender", "windows");
	for (size_t i = 0; i < WINDOWS; i++) {
		int64_t v[5] = { (int64_t)i, ck[i].since, ck[i].until, ck[i].c.fresh,
				 ck[i].c.fresh_all };

		if (ck[i].c.level == WIN_ENCAPSULATE)
			append_row(ap, v, 5);
	}
	duckdb_appender_destroy(&ap);
}

/* ENCAPSULATE as a data engineer would ask DuckDB: the rows meeting each
 * window (disjoint, so their overlaps add up to the window when it is
 * covered), and the newest or oldest load among them. */
static long duck_met(duckdb_connection conn, int64_t now, int64_t *us)
{
	char sql[1024];
	duckdb_result res;
	int64_t t0 = units_mono_us();
	long met;

	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM ("
		 " SELECT w.since, w.until, w.fresh, w.fresh_all,"
		 "  sum(least(r.until, w.until) - greatest(r.since, w.since)) AS covered,"
		 "  max(r.applied_at) AS newest, min(r.oldest_at) AS oldest"
		 " FROM windows w JOIN upstream r ON r.since < w.until AND r.until > w.since"
		 " GROUP BY w.id, w.since, w.until, w.fresh, w.fresh_all)"
		 " WHERE covered = until - since"
		 "  AND (fresh = 0 OR CASE WHEN fresh_all = 1 THEN oldest ELSE newest END"
		 "   >= %" PRId64 " - fresh)",
		 now);
	if (duckdb_query(conn, sql, &res) != DuckDBSuccess)
		die("query failed", duckdb_result_error(&res));
	met = (long)duckdb_value_int64(&res, 0, 0);
	duckdb_destroy_result(&res);
	*us = units_mono_us() - t0;
	return met;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 5;
	int64_t start = instant(YEARS_FROM), end = instant(YEARS_TO), now = end + 86400;
	int64_t *all_us, *enc_us, *duck_us, t0, build_us;
	uint64_t x = 0x5ee1c0de2026ULL;
	struct check *ck = malloc(WINDOWS * sizeof(*ck));
	struct win_row *rows;
	struct win_index ix;
	duckdb_database db;
	duckdb_connection conn;
	long v[4], enc[4], dmet = 0;
	size_t n;
	double ms, enc_ms, duck_ms;

	if (runs < 1)
		runs = 1;
	all_us = calloc((size_t)runs, sizeof(*all_us));
	enc_us = calloc((size_t)runs, sizeof(*enc_us));
	duck_us = calloc((size_t)runs, sizeof(*duck_us));
	if (!ck || !all_us || !enc_us || !duck_us)
		die("out of memory", NULL);
	rows = upstream_rows(start, end, now, &n, &x);
	make_checks(ck, start, end, &x);

	t0 = units_mono_us();
	win_index_build(&ix, WIN_FIXED, start, end, rows, n);
	build_us = units_mono_us() - t0;

	pass(&ix, ck, -1, now, v); /* warm-up */
	for (int r = 0; r < runs; r++) {
		all_us[r] = pass(&ix, ck, -1, now, v);
		enc_us[r] = pass(&ix, ck, WIN_ENCAPSULATE, now, enc);
	}

	open_db(NULL, &db, &conn);
	load(conn, rows, n, ck);
	duck_met(conn, now, &t0); /* warm-up */
	for (int r = 0; r < runs; r++) {
		long m = duck_met(conn, now, &duck_us[r]);

		if (r && m != dmet)
			die("DuckDB's answer changed between runs", NULL);
		dmet = m;
	}
	duckdb_disconnect(&conn);
	duckdb_close(&db);

	ms = (double)median(all_us, runs) / 1000.0;
	enc_ms = (double)median(enc_us, runs) / 1000.0;
	duck_ms = (double)median(duck_us, runs) / 1000.0;
	printf("   upstream: %zu applied hourly rows from %s to %s (%d holes), index built in "
	       "%.1f ms; the %d windows: %ld met, %ld stale, %ld missing; %d runs\n",
	       n, YEARS_FROM, YEARS_TO, HOLES, (double)build_us / 1000.0, WINDOWS, v[WIN_MET],
	       v[WIN_STALE], v[WIN_MISSING], runs);
	printf("gate check of %d windows: %.1f ms (target <= %.0f ms)%s\n", WINDOWS, ms, TARGET_MS,
	       ms <= TARGET_MS ? "" : "  MISSED");
	printf("   ENCAPSULATE with freshness, %ld windows: sluice %.2f ms vs DuckDB in one query "
	       "%.1f ms = %.3fx its time; met: sluice %ld, DuckDB %ld\n",
	       enc[WIN_MET] + enc[WIN_MISSING] + enc[WIN_STALE], enc_ms, duck_ms,
	       duck_ms > 0 ? enc_ms / duck_ms : 0.0, enc[WIN_MET], dmet);
	win_index_free(&ix);
	free(rows);
	free(ck);
	free(all_us);
	free(enc_us);
	free(duck_us);
	if (v[WIN_REFUSED] || enc[WIN_MET] != dmet) {
		fprintf(stderr, RAW_NAME ": sluice and DuckDB disagree on the windows met (%ld vs %ld)\n",
			enc[WIN_MET], dmet);
		return 1;
	}
	return 0;
}
