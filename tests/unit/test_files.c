/*
 * Unit tests for src/files/ and the pieces of other layers a files source
 * stands on: the folder listing and what it refuses, the settle rule, the
 * ledger's verdicts, the reader's options and their rendering into
 * DuckDB's reader call, the readers' errors reworded, the checks of a
 * files source in sluice.yml, and a file landed through the writer once
 * and only once (an in-memory DuckDB warehouse).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fixture.h"

#include "core/buf.h"
#include "files/digest.h"
#include "files/lander.h"
#include "files/ledger.h"
#include "files/reader.h"
#include "files/scan.h"
#include "files/settle.h"
#include "ingest/writer.h"
#include "live/advance.h"
#include "project/config.h"
#include "state/files.h"
#include "state/state.h"
#include "warehouse/file_read.h"
#include "warehouse/wh.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* A files source as sluice.yml would give it, with the defaults. */
static struct source_cfg source(const char *path)
{
	return (struct source_cfg){ .name = "drops", .kind = "files", .path = path,
				    .settle_ms = 1000, .max_file_size = 1 << 20,
				    .interval_ms = 5000 };
}

static const struct files_entry *entry(const struct files_listing *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i].name, name))
			return &l->items[i];
	return NULL;
}

static void test_path_split(void **state)
{
	struct arena *a = arena_new(NULL);
	char root[PATH_MAX];
	const char *dir, *pattern;

	(void)state;
	fixture_mkdtemp(root, "files-split");
	fixture_put(root, "in/sub/x.csv", "a\n1\n");
	files_path_split(a, root, "in/", &dir, &pattern);
	assert_string_equal(dir, "in");
	assert_string_equal(pattern, "*");
	files_path_split(a, root, "in/sub", &dir, &pattern);
	assert_string_equal(dir, "in/sub");
	assert_string_equal(pattern, "*");
	files_path_split(a, root, "in/orders_*.csv", &dir, &pattern);
	assert_string_equal(dir, "in");
	assert_string_equal(pattern, "orders_*.csv");
	/* one named file, there or not yet */
	files_path_split(a, root, "in/today.csv", &dir, &pattern);
	assert_string_equal(dir, "in");
	assert_string_equal(pattern, "today.csv");
	files_path_split(a, root, "*.json", &dir, &pattern);
	assert_string_equal(dir, ".");
	assert_string_equal(pattern, "*.json");
	fixture_rmtree(root);
	arena_free(a);
}

static void test_scan(void **state)
{
	struct arena *a = arena_new(NULL);
	struct sl_err err = SL_ERR_INIT;
	struct files_listing l;
	char root[PATH_MAX], path[PATH_MAX + 64], target[PATH_MAX + 64];

	(void)state;
	fixture_mkdtemp(root, "files-scan");
	fixture_put(root, "in/b.csv", "a\n1\n");
	fixture_put(root, "in/a.csv", "a\n1\n");
	fixture_put(root, "in/.a.csv.part", "a\n");
	fixture_put(root, "in/_SUCCESS", "");
	fixture_put(root, "in/notes.txt", "x\n");
	fixture_put(root, "in/big.csv", "a\n1\n2\n3\n4\n5\n");
	fixture_put(root, "in/odd[1].csv", "a\n1\n");
	fixture_put(root, "in/sub/c.csv", "a\n1\n");
	fixture_put(root, "secret.csv", "a\n1\n");
	snprintf(target, sizeof(target), "%s/secret.csv", root);
	snprintf(path, sizeof(path), "%s/in/out.csv", root);
	assert_int_equal(symlink(target, path), 0);
	snprintf(target, sizeof(target), "%s/in/a.csv", root);
	snprintf(path, sizeof(path), "%s/in/alias.csv", root);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(files_scan(a, root, "in", "*.csv", 8, &l, &err), 0);
	assert_int_equal(l.n, 6);
	/* sorted by name; hidden, marker, folder and other names left out */
	assert_string_equal(l.items[0].name, "in/a.csv");
	assert_string_equal(l.items[1].name, "in/alias.csv");
	assert_null(entry(&l, "in/notes.txt"));
	assert_null(entry(&l, "in/_SUCCESS"));
	assert_null(entry(&l, "in/.a.csv.part"));
	assert_null(entry(&l, "in/sub"));
	assert_null(entry(&l, "in/a.csv")->refused);
	/* a link inside the folder is read through to its file */
	assert_null(entry(&l, "in/alias.csv")->refused);
	assert_string_equal(entry(&l, "in/alias.csv")->open, target);
	assert_non_null(strstr(entry(&l, "in/out.csv")->refused, "leads out of the folder"));
	assert_non_null(strstr(entry(&l, "in/odd[1].csv")->refused, "pattern of names"));
	assert_non_null(strstr(entry(&l, "in/big.csv")->refused, "more than max_file_size"));
	assert_int_equal(files_scan(a, root, "gone", "*", 8, &l, &err), SL_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "cannot read folder 'gone'"));
	fixture_rmtree(root);
	arena_free(a);
}

static void test_settle(void **state)
{
	struct arena *a = arena_new(NULL);
	struct files_memory m = { .a = a };
	struct files_entry e = { .name = "in/a.csv", .size = 10, .mtime_ns = 100000LL * 1000000,
				 .ino = 7 };
	struct files_seen *s;
	int64_t wait;

	(void)state;
	/* changed just now: it waits the settle time from the first look */
	files_memory_look(&m);
	s = files_memory_see(&m, &e, 100000);
	assert_false(files_settled(s, 100000, 1000, &wait));
	assert_int_equal(wait, 1000);
	/* it grew: seen anew, the wait starts again */
	files_memory_look(&m);
	e.size = 20;
	e.mtime_ns = 100500LL * 1000000;
	s = files_memory_see(&m, &e, 100600);
	assert_false(files_settled(s, 100600, 1000, &wait));
	assert_int_equal(wait, 900);
	/* unchanged for the settle time: settled */
	files_memory_look(&m);
	s = files_memory_see(&m, &e, 101600);
	assert_true(files_settled(s, 101600, 1000, &wait));
	/* a hash taken stays while it is unchanged, and goes when it changes */
	strcpy(s->sha256, "ab");
	s->failed = true;
	files_memory_look(&m);
	s = files_memory_see(&m, &e, 101700);
	assert_string_equal(s->sha256, "ab");
	assert_true(s->failed);
	e.ino = 8;
	s = files_memory_see(&m, &e, 101700);
	assert_string_equal(s->sha256, "");
	assert_false(s->failed);
	/* a file last changed long ago lands at its first look */
	files_memory_look(&m);
	e = (struct files_entry){ .name = "in/old.csv", .size = 1, .mtime_ns = 1000000 };
	s = files_memory_see(&m, &e, 500000);
	assert_true(files_settled(s, 500000, 1000, &wait));
	/* a file no longer there is forgotten */
	files_memory_sweep(&m);
	assert_int_equal(m.n, 1);
	assert_string_equal(m.items[0].name, "in/old.csv");
	arena_free(a);
}

static void test_ledger(void **state)
{
	struct arena *a = arena_new(NULL);
	struct files_ledger l = { .a = a };

	(void)state;
	assert_int_equal(files_ledger_judge(&l, "in/a.csv", "h1"), FILES_NEW);
	files_ledger_add(&l, "in/a.csv", "h1");
	files_ledger_add(&l, "in/a.csv", "h1");
	assert_int_equal(l.n, 1);
	assert_int_equal(files_ledger_judge(&l, "in/a.csv", "h1"), FILES_LANDED);
	assert_int_equal(files_ledger_judge(&l, "in/a.csv", "h2"), FILES_NEW_VERSION);
	/* the same content under another name is another file */
	assert_int_equal(files_ledger_judge(&l, "in/b.csv", "h1"), FILES_NEW);
	files_ledger_add(&l, "in/a.csv", "h2");
	assert_int_equal(files_ledger_judge(&l, "in/a.csv", "h1"), FILES_LANDED);
	assert_int_equal(files_ledger_judge(&l, "in/a.csv", "h2"), FILES_LANDED);
	arena_free(a);
}

static void test_digest(void **state)
{
	struct arena *a = arena_new(NULL);
	struct sl_err err = SL_ERR_INIT;
	struct files_listing l;
	char root[PATH_MAX], hex[65];

	(void)state;
	fixture_mkdtemp(root, "files-digest");
	fixture_put(root, "in/a.csv", "abc");
	assert_int_equal(files_scan(a, root, "in", "*", 1 << 20, &l, &err), 0);
	assert_int_equal(files_digest(&l.items[0], hex, &err), 0);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* changed since it was listed: not hashed */
	fixture_put(root, "in/a.csv", "abcd");
	assert_int_equal(files_digest(&l.items[0], hex, &err), SL_E_BUSY);
	fixture_rmtree(root);
	arena_free(a);
}

static const char *render(struct arena *a, const struct wh_file_read *rd, const char *const *found)
{
	struct buf sql = BUF_INIT;
	const char *out;

	file_sql_reader(&sql, rd, found);
	out = arena_strdup(a, sql.buf);
	buf_release(&sql);
	return out;
}

static void test_reader(void **state)
{
	struct arena *a = arena_new(NULL);
	struct sl_err err = SL_ERR_INIT;
	struct cfg_column cols[] = { { "amount", "DECIMAL(10, 2)" }, { "day", "DATE" } };
	struct source_cfg src = source("in/");
	struct files_entry e = { .name = "in/a.tsv.gz", .open = "/x/in/a.tsv.gz" };
	struct wh_file_read rd;
	const char *found[] = { "Amount", NULL };

	(void)state;
	assert_int_equal(files_reader(a, &src, &e, &rd, &err), 0);
	assert_int_equal(rd.format, WH_FILE_CSV);
	assert_string_equal(rd.delim, "\t");
	assert_string_equal(render(a, &rd, NULL),
			    "read_csv('/x/in/a.tsv.gz', header = true, skip = 0, all_varchar = "
			    "true, delim = '\t')");
	/* every option, and the typed columns the file has typed by the reader */
	src.separator = ";";
	src.encoding = "latin-1";
	src.remove_top_rows = 2;
	src.dateformat = "%d/%m/%Y";
	src.columns = cols;
	src.ncolumns = 2;
	e.name = "in/it's.csv";
	e.open = "/x/in/it's.csv";
	assert_int_equal(files_reader(a, &src, &e, &rd, &err), 0);
	assert_string_equal(render(a, &rd, found),
			    "read_csv('/x/in/it''s.csv', header = true, skip = 2, all_varchar = "
			    "true, delim = ';', encoding = 'latin-1', dateformat = '%d/%m/%Y', "
			    "types = {'Amount': 'DECIMAL(10, 2)'})");
	e.name = "in/a.ndjson";
	e.open = "/x/in/a.ndjson";
	assert_int_equal(files_reader(a, &src, &e, &rd, &err), 0);
	assert_int_equal(rd.format, WH_FILE_NDJSON);
	assert_string_equal(render(a, &rd, NULL),
			    "read_json_objects('/x/in/a.ndjson', format = 'newline_delimited')");
	e.name = "in/a.PARQUET";
	e.open = "/x/in/a.PARQUET";
	assert_int_equal(files_reader(a, &src, &e, &rd, &err), 0);
	assert_string_equal(render(a, &rd, NULL), "read_parquet('/x/in/a.PARQUET')");
	/* the format from file_ending, whatever the name */
	src.file_ending = "json";
	e.name = "in/export";
	assert_int_equal(files_reader(a, &src, &e, &rd, &err), 0);
	assert_int_equal(rd.format, WH_FILE_JSON);
	src.file_ending = NULL;
	assert_int_equal(files_reader(a, &src, &e, &rd, &err), SL_E_INVALID);
	assert_non_null(strstr(err.msg, "in/export: cannot tell its format"));
	arena_free(a);
}

static void test_select(void **state)
{
	struct arena *a = arena_new(NULL);
	struct wh_column cols[] = { { "id", "BIGINT" }, { "day", "DATE" } };
	struct wh_file_value values[] = { { "_sluice_file", "in/a.json" } };
	struct wh_file_read rd = { .path = "/x/a.json", .shown = "in/a.json", .format = WH_FILE_JSON,
				   .dateformat = "%d/%m/%Y", .columns = cols, .ncolumns = 2,
				   .payload = "payload", .values = values, .nvalues = 1 };
	const char *found[] = { "id", "day" };
	struct buf sql = BUF_INIT;

	(void)state;
	file_sql_select(&sql, &rd, found);
	assert_string_equal(sql.buf,
			    "SELECT CAST(_sluice_r.json ->> 'id' AS BIGINT) AS \"id\", "
			    "CAST(strptime(_sluice_r.json ->> 'day', '%d/%m/%Y') AS DATE) AS \"day\", "
			    "_sluice_r.json AS \"payload\", 'in/a.json' AS \"_sluice_file\" FROM "
			    "read_json_objects('/x/a.json', format = 'auto') AS _sluice_r");
	buf_reset(&sql);
	rd.format = WH_FILE_PARQUET;
	found[1] = NULL;
	file_sql_select(&sql, &rd, found);
	assert_string_equal(sql.buf,
			    "SELECT CAST(_sluice_r.\"id\" AS BIGINT) AS \"id\", CAST(NULL AS DATE) AS "
			    "\"day\", to_json(_sluice_r) AS \"payload\", 'in/a.json' AS \"_sluice_file\" "
			    "FROM "
			    "read_parquet('/x/a.json') AS _sluice_r");
	buf_release(&sql);
	arena_free(a);
}

static void test_errors(void **state)
{
	struct sl_err err = SL_ERR_INIT;

	(void)state;
	sl_err_set(&err, SL_E_SQL,
		   "Conversion Error: CSV Error on Line: 3\nOriginal Line: 2,x\nError when "
		   "converting column \"amount\". Could not convert string \"x\" to 'DOUBLE'\n\n"
		   "  file = /abs/in/a.csv\n");
	file_error("/abs/in/a.csv", "in/a.csv", SL_E_SQL, &err);
	assert_string_equal(err.msg, "in/a.csv:3: error when converting column \"amount\". Could "
				     "not convert string \"x\" to 'DOUBLE'");
	sl_err_set(&err, SL_E_SQL,
		   "Invalid Input Error: Malformed JSON in file \"/abs/in/b.ndjson\", at byte 9 in "
		   "line 3: unexpected end of data. \n\nLINE 1: SELECT");
	file_error("/abs/in/b.ndjson", "in/b.ndjson", SL_E_SQL, &err);
	assert_string_equal(err.msg, "in/b.ndjson:3: malformed JSON: unexpected end of data");
	sl_err_set(&err, SL_E_SQL,
		   "Invalid Input Error: File '/abs/in/c.parquet' too small to be a Parquet file");
	file_error("/abs/in/c.parquet", "in/c.parquet", SL_E_SQL, &err);
	assert_string_equal(err.msg,
			    "in/c.parquet: file 'in/c.parquet' too small to be a Parquet file");
}

/* The one diagnostic of cfg's load that begins with msg, at line. */
static void expect_diag(const struct diag_list *d, const char *msg, int line)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strncmp(d->items[i].msg, msg, strlen(msg))) {
			assert_int_equal(d->items[i].line, line);
			return;
		}
	diag_print(d, stderr);
	fail_msg("no diagnostic '%s'", msg);
}

static void test_config(void **state)
{
	struct arena *a = arena_new(NULL);
	struct diag_list d;
	struct project_cfg cfg;
	char root[PATH_MAX], path[PATH_MAX + 32];

	(void)state;
	diag_list_init(&d, a);
	fixture_mkdtemp(root, "files-config");
	fixture_put(root, "sluice.yml",
		    "name: t\n"
		    "sources:\n"
		    "  ok: {kind: files, path: in/, separator: '\\t', encoding: LATIN1,\n"
		    "       remove_top_rows: 0, archive_folder: done, interval: 1s}\n"
		    "  nopath: {kind: files}\n"
		    "  up: {kind: files, path: ../secrets/*.csv}\n"
		    "  deep: {kind: files, path: in/*/x.csv}\n"
		    "  bracket: {kind: files, path: 'in/[ab.csv'}\n"
		    "  enc: {kind: files, path: in/, encoding: cp1252}\n"
		    "  sep: {kind: files, path: in/, separator: ';;;;;'}\n"
		    "  pq: {kind: files, path: in/, file_ending: parquet, separator: ';'}\n"
		    "  typo: {kind: files, path: in/, seperator: ';'}\n"
		    "  hook: {kind: webhook, archive_folder: done}\n"
		    "  arch: {kind: files, path: in/, archive_folder: ../out}\n");
	snprintf(path, sizeof(path), "%s/sluice.yml", root);
	assert_int_equal(project_cfg_load(a, path, "sluice.yml", &cfg, &d), SL_E_CONFIG);
	assert_string_equal(cfg.sources[0].separator, "\t");
	assert_string_equal(cfg.sources[0].encoding, "latin-1");
	assert_int_equal(cfg.sources[0].interval_ms, 1000);
	assert_int_equal(cfg.sources[0].settle_ms, 1000);
	assert_int_equal(cfg.sources[0].max_file_size, 256LL << 20);
	expect_diag(&d, "missing 'path' for files source 'nopath'", 5);
	expect_diag(&d, "invalid path '../secrets/*.csv' for 'sources.up': a path with '..'", 6);
	expect_diag(&d, "invalid path 'in/*/x.csv' for 'sources.deep': only the last part", 7);
	expect_diag(&d, "invalid path 'in/[ab.csv' for 'sources.bracket': a '[' without", 8);
	expect_diag(&d, "unknown encoding 'cp1252' for 'sources.enc'", 9);
	expect_diag(&d, "invalid separator ';;;;;' for 'sources.sep'", 10);
	expect_diag(&d, "'separator' applies to CSV files, not to the parquet files", 11);
	expect_diag(&d, "unknown key 'sources.typo.seperator'", 12);
	expect_diag(&d, "'archive_folder' applies to files sources only, not to webhook", 13);
	expect_diag(&d, "invalid archive_folder '../out' for 'sources.arch'", 14);
	fixture_rmtree(root);
	arena_free(a);
}

/* A landing through the writer of an in-memory warehouse. */
static int land(struct ingest_writer *wr, const struct ingest_file *f, struct ingest_result *res)
{
	struct ingest_batch b = { .source = "landing.drops", .file = f };
	struct sl_err err = SL_ERR_INIT;
	int rc = ingest_submit_wait(wr, &b, res, &err);

	if (rc)
		print_error("%s\n", err.msg);
	return rc;
}

static void test_lands_once(void **state)
{
	struct arena *a = arena_new(NULL);
	struct sl_err err = SL_ERR_INIT;
	struct ingest_opts io = { .flush_rows = 1000, .max_rows = 10000 };
	struct wh_column cols[] = { { "id", "BIGINT" } };
	char root[PATH_MAX], path[PATH_MAX + 32];
	struct wh_file_read rd = { .path = path, .shown = "in/a.csv", .format = WH_FILE_CSV,
				   .columns = cols, .ncolumns = 1, .payload = "payload" };
	struct ingest_file f = { &rd, "in/a.csv", "h1", 12 };
	struct ingest_writer *wr;
	struct ingest_result res;
	struct wh *w, *r;
	int64_t n[2];

	(void)state;
	fixture_mkdtemp(root, "files-land");
	fixture_put(root, "in/a.csv", "id,name\n1,x\n2,y\n");
	snprintf(path, sizeof(path), "%s/in/a.csv", root);
	assert_int_equal(wh_open_duckdb(":memory:", false, &w, &err), 0);
	assert_int_equal(state_ensure(w, &err), 0);
	assert_int_equal(wh_exec(w,
				 "CREATE SCHEMA landing; CREATE TABLE landing.drops (id BIGINT, "
				 "payload JSON, _sluice_file VARCHAR, _sluice_landed_at TIMESTAMP, "
				 "_sluice_seq BIGINT)",
				 &err),
			 0);
	assert_int_equal(wh_connect(w, &r, &err), 0);
	assert_int_equal(ingest_writer_start(w, &io, &wr, &err), 0);
	assert_int_equal(land(wr, &f, &res), 0);
	assert_int_equal(res.code, 0);
	assert_false(res.duplicate);
	assert_int_equal(res.rows, 2);
	/* the same name and hash again: on record, nothing lands */
	assert_int_equal(land(wr, &f, &res), 0);
	assert_true(res.duplicate);
	assert_int_equal(res.rows, 2);
	/* a new version of the name lands */
	f.sha256 = "h2";
	assert_int_equal(land(wr, &f, &res), 0);
	assert_false(res.duplicate);
	/* a file the reader refuses lands nothing and is not on record */
	fixture_put(root, "in/a.csv", "id,name\n1,x\nnine,y\n");
	f.sha256 = "h3";
	assert_int_equal(land(wr, &f, &res), 0);
	assert_int_equal(res.code, SL_E_SQL);
	assert_string_equal(res.error, "in/a.csv:3: error when converting column \"id\". Could not "
				       "convert string \"nine\" to 'BIGINT'");
	ingest_writer_stop(wr);
	assert_int_equal(wh_query_ints(r,
				       "SELECT (SELECT count(*) FROM landing.drops), (SELECT count(*) "
				       "FROM _sluice.landed_files)",
				       n, 2, &err),
			 0);
	assert_int_equal(n[0], 4);
	assert_int_equal(n[1], 2);
	wh_close(r);
	fixture_rmtree(root);
	arena_free(a);
}

/* Files dropped moments apart: the look says when the first may have
 * settled and when all of them may have, so that --once waits for all. */
static void test_waits_for_every_file(void **state)
{
	struct arena *a = arena_new(NULL);
	struct sl_err err = SL_ERR_INIT;
	struct source_cfg src = source("in/*.csv");
	struct timespec times[2];
	struct files_lander *l;
	struct files_result res;
	char root[PATH_MAX], path[PATH_MAX + 32];
	struct wh *w;

	(void)state;
	fixture_mkdtemp(root, "files-wait");
	fixture_put(root, "in/a.csv", "id\n1\n");
	fixture_put(root, "in/b.csv", "id\n2\n");
	/* a.csv last changed 600 ms ago, b.csv just now */
	clock_gettime(CLOCK_REALTIME, &times[0]);
	times[0].tv_nsec -= 600000000L;
	if (times[0].tv_nsec < 0) {
		times[0].tv_sec--;
		times[0].tv_nsec += 1000000000L;
	}
	times[1] = times[0];
	snprintf(path, sizeof(path), "%s/in/a.csv", root);
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
	assert_int_equal(wh_open_duckdb(":memory:", false, &w, &err), 0);
	assert_int_equal(state_ensure(w, &err), 0);
	assert_int_equal(files_lander_new(a, &src, root, &l, &err), 0);
	assert_int_equal(files_land(l, a, w, NULL, &res, &err), 0);
	assert_int_equal(res.waiting, 2);
	assert_int_equal(res.files, 0);
	assert_in_range(res.wait_ms, 1, 450);
	assert_in_range(res.wait_all_ms, 900, 1000);
	files_lander_free(l);
	wh_close(w);
	fixture_rmtree(root);
	arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_split), cmocka_unit_test(test_scan),
		cmocka_unit_test(test_settle),	   cmocka_unit_test(test_ledger),
		cmocka_unit_test(test_digest),	   cmocka_unit_test(test_reader),
		cmocka_unit_test(test_select),	   cmocka_unit_test(test_errors),
		cmocka_unit_test(test_config),	   cmocka_unit_test(test_lands_once),
		cmocka_unit_test(test_waits_for_every_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
