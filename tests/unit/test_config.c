/*
 * Unit tests for src/project/config.c: sluice.yml and pipeline.yml loading,
 * defaults, and the diagnostics (place, message, hint) for each kind of
 * mistake. Each test writes its YAML to a fresh file under /tmp.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/arena.h"
#include "core/diag.h"
#include "core/err.h"
#include "project/config.h"
#include "project/files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fixture {
	struct arena *a;
	struct diag_list diags;
	struct project_cfg cfg;
	struct kv_list kv;
	char path[64];
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->a = arena_new(NULL);
	diag_list_init(&f->diags, f->a);
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	struct fixture *f = *state;

	if (f->path[0])
		unlink(f->path);
	arena_free(f->a);
	free(f);
	return 0;
}

static void fixture_write(struct fixture *f, const char *text)
{
	int fd;

	if (f->path[0])
		unlink(f->path);
	strcpy(f->path, "/tmp/sluice-test-config-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int load(struct fixture *f, const char *text)
{
	fixture_write(f, text);
	return project_cfg_load(f->a, f->path, "sluice.yml", &f->cfg, &f->diags);
}

static int load_pipeline(struct fixture *f, const char *text)
{
	fixture_write(f, text);
	return pipeline_cfg_load(f->a, f->path, "models/gold/pipeline.yml", &f->kv, &f->diags);
}

/* The one diagnostic whose message starts with prefix; fails if not exactly one. */
static const struct diag *diag_find(const struct fixture *f, const char *prefix)
{
	const struct diag *found = NULL;
	size_t n = 0;

	for (size_t i = 0; i < f->diags.n; i++) {
		if (!strncmp(f->diags.items[i].msg, prefix, strlen(prefix))) {
			found = &f->diags.items[i];
			n++;
		}
	}
	if (n != 1)
		print_error("%zu diagnostics start with '%s'\n", n, prefix);
	assert_int_equal(n, 1);
	return found;
}

static void diag_expect(const struct fixture *f, const char *msg, int line, int col,
			const char *hint)
{
	const struct diag *d = diag_find(f, msg);

	assert_string_equal(d->msg, msg);
	assert_string_equal(d->file, "sluice.yml");
	assert_int_equal(d->severity, DIAG_ERROR);
	assert_int_equal(d->line, line);
	assert_int_equal(d->col, col);
	if (hint)
		assert_string_equal(d->hint, hint);
	else
		assert_null(d->hint);
}

static const struct source_cfg *source_find(const struct project_cfg *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nsources; i++) {
		if (!strcmp(cfg->sources[i].name, name))
			return &cfg->sources[i];
	}
	fail_msg("no source '%s'", name);
	return NULL;
}

static const char design_example[] =
	"name: shop\n"
	"warehouse: {type: duckdb, path: warehouse.duckdb}    # or {type: postgres, dsn_env: W}\n"
	"sources:                       # each lands in table landing.<name>\n"
	"  orders:  {kind: webhook, columns: {order_id: BIGINT, amount: DOUBLE, region: VARCHAR},\n"
	"            secret_env: ORDERS_SECRET,                  # optional HMAC signing\n"
	"            event_time: created_at, lateness: 5m}       # optional: window coverage\n"
	"  pg_orders: {kind: postgres_cdc, dsn_env: SRC_DSN, publication: shop_pub, "
	"slot: shop_slot}\n"
	"  rates:   {kind: poll, url: \"http://127.0.0.1:9000/rates\", interval: 30s, "
	"cursor: updated_at}\n"
	"  clicks:  {kind: kafka, brokers: \"127.0.0.1:9092\", topic: clicks, boundary: offsets}\n"
	"  legacy:  {kind: adopted, table: raw.legacy_events, cursor: id, boundary: cursor}\n"
	"live:   {enabled: true, min_interval: 1s, debounce: 200ms, max_latency: 5s, "
	"poll_interval: 5s,\n"
	"         log_interval: 60s, backoff_base: 2s, backoff_max: 300s, assertion_interval: 0,\n"
	"         profile_interval: 300s, max_lag: 300s}\n"
	"server: {listen: \"127.0.0.1:8080\", token_env: SLUICE_TOKEN, max_body: 8MiB}\n"
	"ingest: {flush_interval: 20ms, flush_rows: 50000}\n"
	"alerts: {command: \"./notify.sh\"}   # each alert as JSON on stdin\n"
	"replay: {bounded_replay_fallback: full, "
	"replay_on_change: {breaking: full, non_breaking: bounded-7d}}\n";

static void test_design_example(void **state)
{
	struct fixture *f = *state;
	const struct source_cfg *s;

	assert_int_equal(load(f, design_example), 0);
	assert_int_equal(f->diags.n, 0);
	assert_string_equal(f->cfg.path, f->path);
	assert_string_equal(f->cfg.name, "shop");
	assert_string_equal(f->cfg.warehouse.type, "duckdb");
	assert_string_equal(f->cfg.warehouse.path, "warehouse.duckdb");
	assert_null(f->cfg.warehouse.dsn_env);

	assert_int_equal(f->cfg.nsources, 5);
	s = &f->cfg.sources[0];
	assert_string_equal(s->name, "orders");
	assert_int_equal(s->line, 4);
	assert_string_equal(s->kind, "webhook");
	assert_int_equal(s->ncolumns, 3);
	assert_string_equal(s->columns[0].name, "order_id");
	assert_string_equal(s->columns[0].type, "BIGINT");
	assert_string_equal(s->columns[1].name, "amount");
	assert_string_equal(s->columns[1].type, "DOUBLE");
	assert_string_equal(s->columns[2].name, "region");
	assert_string_equal(s->columns[2].type, "VARCHAR");
	assert_string_equal(s->secret_env, "ORDERS_SECRET");
	assert_string_equal(s->event_time, "created_at");
	assert_int_equal(s->lateness_ms, 5 * 60 * 1000);
	assert_int_equal(s->interval_ms, 0);

	s = &f->cfg.sources[1];
	assert_string_equal(s->name, "pg_orders");
	assert_int_equal(s->line, 7);
	assert_string_equal(s->kind, "postgres_cdc");
	assert_string_equal(s->dsn_env, "SRC_DSN");
	assert_string_equal(s->publication, "shop_pub");
	assert_string_equal(s->slot, "shop_slot");
	assert_int_equal(s->ncolumns, 0);

	s = &f->cfg.sources[2];
	assert_string_equal(s->name, "rates");
	assert_string_equal(s->kind, "poll");
	assert_string_equal(s->url, "http://127.0.0.1:9000/rates");
	assert_int_equal(s->interval_ms, 30000);
	assert_string_equal(s->cursor, "updated_at");

	s = &f->cfg.sources[3];
	assert_string_equal(s->name, "clicks");
	assert_string_equal(s->kind, "kafka");
	assert_string_equal(s->brokers, "127.0.0.1:9092");
	assert_int_equal(s->ntopics, 1);
	assert_string_equal(s->topics[0], "clicks");
	assert_string_equal(s->boundary, "offsets");

	s = &f->cfg.sources[4];
	assert_string_equal(s->name, "legacy");
	assert_int_equal(s->line, 10);
	assert_string_equal(s->kind, "adopted");
	assert_string_equal(s->table, "raw.legacy_events");
	assert_string_equal(s->cursor, "id");
	assert_string_equal(s->boundary, "cursor");

	assert_true(f->cfg.live.enabled);
	assert_int_equal(f->cfg.live.min_interval_ms, 1000);
	assert_int_equal(f->cfg.live.debounce_ms, 200);
	assert_int_equal(f->cfg.live.max_latency_ms, 5000);
	assert_int_equal(f->cfg.live.poll_interval_ms, 5000);
	assert_int_equal(f->cfg.live.log_interval_ms, 60000);
	assert_int_equal(f->cfg.live.backoff_base_ms, 2000);
	assert_int_equal(f->cfg.live.backoff_max_ms, 300000);
	assert_int_equal(f->cfg.live.assertion_interval_ms, 0);
	assert_int_equal(f->cfg.live.profile_interval_ms, 300000);
	assert_int_equal(f->cfg.live.max_lag_ms, 300000);
	assert_string_equal(f->cfg.server.listen, "127.0.0.1:8080");
	assert_string_equal(f->cfg.server.token_env, "SLUICE_TOKEN");
	assert_int_equal(f->cfg.server.max_body, 8 * 1024 * 1024);
	assert_int_equal(f->cfg.ingest.flush_interval_ms, 20);
	assert_int_equal(f->cfg.ingest.flush_rows, 50000);
	assert_string_equal(f->cfg.alerts.command, "./notify.sh");
	assert_string_equal(f->cfg.replay.bounded_replay_fallback, "full");
	assert_string_equal(f->cfg.replay.on_change_breaking, "full");
	assert_string_equal(f->cfg.replay.on_change_non_breaking, "bounded-7d");
}

static void test_block_style(void **state)
{
	struct fixture *f = *state;
	const struct source_cfg *s;

	assert_int_equal(load(f, "name: 'shop'\n"
				 "warehouse:\n"
				 "  type: postgres\n"
				 "  dsn_env: WAREHOUSE_DSN\n"
				 "sources:\n"
				 "  orders:\n"
				 "    kind: webhook\n"
				 "    columns:\n"
				 "      b: INT\n"
				 "      a: VARCHAR\n"
				 "live:\n"
				 "  enabled: false\n"
				 "  debounce: 1.5s\n"
				 "  max_lag: 2h\n"
				 "server:\n"
				 "  max_body: 512KiB\n"
				 "ingest:\n"
				 "  flush_rows: 10\n"
				 "replay:\n"
				 "  bounded_replay_fallback: bounded_without_history\n"
				 "  replay_on_change:\n"
				 "    non_breaking: bounded-1d\n"),
			 0);
	assert_int_equal(f->diags.n, 0);
	assert_string_equal(f->cfg.name, "shop");
	assert_string_equal(f->cfg.warehouse.type, "postgres");
	assert_string_equal(f->cfg.warehouse.dsn_env, "WAREHOUSE_DSN");
	s = source_find(&f->cfg, "orders");
	assert_int_equal(s->line, 6);
	assert_int_equal(s->ncolumns, 2);
	assert_string_equal(s->columns[0].name, "b");
	assert_string_equal(s->columns[1].name, "a");
	assert_false(f->cfg.live.enabled);
	assert_int_equal(f->cfg.live.debounce_ms, 1500);
	assert_int_equal(f->cfg.live.max_lag_ms, 2 * 3600 * 1000);
	assert_int_equal(f->cfg.live.min_interval_ms, 1000);
	assert_int_equal(f->cfg.server.max_body, 512 * 1024);
	assert_int_equal(f->cfg.ingest.flush_rows, 10);
	assert_int_equal(f->cfg.ingest.flush_interval_ms, 0);
	assert_string_equal(f->cfg.replay.bounded_replay_fallback, "bounded_without_history");
	assert_string_equal(f->cfg.replay.on_change_breaking, "full");
	assert_string_equal(f->cfg.replay.on_change_non_breaking, "bounded-1d");
}

static void defaults_check(const struct project_cfg *cfg)
{
	assert_string_equal(cfg->warehouse.type, "duckdb");
	assert_string_equal(cfg->warehouse.path, "warehouse.duckdb");
	assert_null(cfg->warehouse.dsn_env);
	assert_int_equal(cfg->nsources, 0);
	assert_true(cfg->live.enabled);
	assert_int_equal(cfg->live.min_interval_ms, 1000);
	assert_int_equal(cfg->live.debounce_ms, 200);
	assert_int_equal(cfg->live.max_latency_ms, 5000);
	assert_int_equal(cfg->live.poll_interval_ms, 5000);
	assert_int_equal(cfg->live.log_interval_ms, 60000);
	assert_int_equal(cfg->live.backoff_base_ms, 2000);
	assert_int_equal(cfg->live.backoff_max_ms, 300000);
	assert_int_equal(cfg->live.assertion_interval_ms, 0);
	assert_int_equal(cfg->live.profile_interval_ms, 300000);
	assert_int_equal(cfg->live.max_lag_ms, 300000);
	assert_string_equal(cfg->server.listen, "127.0.0.1:8080");
	assert_null(cfg->server.token_env);
	assert_int_equal(cfg->server.max_body, 8 * 1024 * 1024);
	assert_int_equal(cfg->ingest.flush_interval_ms, 0);
	assert_int_equal(cfg->ingest.flush_rows, 50000);
	assert_null(cfg->alerts.command);
	assert_string_equal(cfg->replay.bounded_replay_fallback, "full");
	assert_string_equal(cfg->replay.on_change_breaking, "full");
	assert_string_equal(cfg->replay.on_change_non_breaking, "bounded-7d");
}

static void test_defaults(void **state)
{
	struct fixture *f = *state;
	struct project_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	project_cfg_defaults(&cfg);
	defaults_check(&cfg);
	assert_null(cfg.name);

	/* a null value leaves the default in place */
	assert_int_equal(load(f, "name: shop\nlive:\n  debounce:\nserver: ~\n"), 0);
	defaults_check(&f->cfg);
	assert_string_equal(f->cfg.name, "shop");
}

static void test_source_defaults(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  rates: {kind: poll, url: 'http://x/'}\n"
				 "  fast: {kind: poll, url: 'http://y/', interval: 500ms}\n"
				 "  hook: {kind: webhook}\n"),
			 0);
	assert_int_equal(source_find(&f->cfg, "rates")->interval_ms, 30000);
	assert_int_equal(source_find(&f->cfg, "rates")->lateness_ms, 0);
	assert_int_equal(source_find(&f->cfg, "fast")->interval_ms, 500);
	assert_int_equal(source_find(&f->cfg, "hook")->interval_ms, 0);
	assert_int_equal(source_find(&f->cfg, "hook")->ncolumns, 0);
}

static void test_unknown_keys(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\n"
				 "warehous: {type: duckdb}\n"
				 "live:\n"
				 "  debounse: 1s\n"
				 "sources:\n"
				 "  orders: {kind: webhook, secret_envv: X}\n"
				 "zzzzzzzz: 1\n"),
			 SL_E_CONFIG);
	assert_int_equal(f->diags.n, 4);
	diag_expect(f, "unknown key 'warehous' in sluice.yml", 2, 1, "did you mean 'warehouse'?");
	diag_expect(f, "unknown key 'live.debounse' in sluice.yml", 4, 3,
		    "did you mean 'debounce'?");
	diag_expect(f, "unknown key 'sources.orders.secret_envv' in sluice.yml", 6, 27,
		    "did you mean 'secret_env'?");
	diag_expect(f, "unknown key 'zzzzzzzz' in sluice.yml", 7, 1, NULL);
	/* the rest of the file is still loaded */
	assert_string_equal(f->cfg.name, "shop");
	assert_string_equal(source_find(&f->cfg, "orders")->kind, "webhook");
}

static void test_bad_duration(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\nlive: {debounce: fast, max_lag: 10}\n"), SL_E_CONFIG);
	assert_int_equal(f->diags.n, 2);
	diag_expect(f, "invalid duration 'fast' for 'live.debounce'", 2, 18,
		    "write e.g. 200ms, 10s, 5m, 1h, 7d");
	diag_expect(f, "invalid duration '10' for 'live.max_lag'", 2, 33,
		    "write e.g. 200ms, 10s, 5m, 1h, 7d");
	assert_int_equal(f->cfg.live.debounce_ms, 200);
}

static void test_bad_size_number_bool(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\n"
				 "server:\n"
				 "  max_body: huge\n"
				 "ingest:\n"
				 "  flush_rows: -3\n"
				 "live:\n"
				 "  enabled: maybe\n"
				 "sources:\n"
				 "  s: {kind: webhook, lateness: soon}\n"),
			 SL_E_CONFIG);
	assert_int_equal(f->diags.n, 4);
	diag_expect(f, "invalid size 'huge' for 'server.max_body'", 3, 13,
		    "write e.g. 512KiB, 8MiB");
	diag_expect(f, "invalid number '-3' for 'ingest.flush_rows'", 5, 15,
		    "write a whole number above 0, e.g. 50000");
	diag_expect(f, "invalid boolean 'maybe' for 'live.enabled'", 7, 12, "write true or false");
	diag_expect(f, "invalid duration 'soon' for 'sources.s.lateness'", 9, 32,
		    "write e.g. 200ms, 10s, 5m, 1h, 7d");
}

static void test_shapes(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: [shop]\n"
				 "live: true\n"
				 "server:\n"
				 "  listen: {host: x}\n"
				 "sources:\n"
				 "  - orders\n"
				 "alerts:\n"
				 "  command:\n"
				 "    - a\n"),
			 SL_E_CONFIG);
	assert_int_equal(f->diags.n, 5);
	diag_expect(f, "expected a scalar for 'name', not a list", 1, 7, NULL);
	diag_expect(f, "expected a mapping for 'live', not a scalar", 2, 7, NULL);
	diag_expect(f, "expected a scalar for 'server.listen', not a mapping", 4, 11, NULL);
	diag_expect(f, "expected a mapping for 'sources', not a list", 6, 3, NULL);
	diag_expect(f, "expected a scalar for 'alerts.command', not a list", 9, 5, NULL);
}

static void test_source_kind(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  a: {kind: webhok}\n"
				 "  b: {kind: ftp}\n"
				 "  c: {columns: {x: INT}}\n"
				 "  d:\n"
				 "  e: {kind: kafka, brokers: b, topic: t, boundary: offset}\n"),
			 SL_E_CONFIG);
	assert_int_equal(f->diags.n, 5);
	diag_expect(f, "unknown value 'webhok' for 'sources.a.kind'", 3, 13,
		    "did you mean 'webhook'?");
	diag_expect(f, "unknown value 'ftp' for 'sources.b.kind'", 4, 13,
		    "expected one of webhook, postgres_cdc, poll, kafka, files, adopted");
	diag_expect(f, "missing 'kind' for source 'c'", 5, 3,
		    "add kind: webhook, postgres_cdc, poll, kafka, files or adopted");
	diag_expect(f, "missing 'kind' for source 'd'", 6, 3,
		    "add kind: webhook, postgres_cdc, poll, kafka, files or adopted");
	diag_expect(f, "unknown value 'offset' for 'sources.e.boundary'", 7, 52,
		    "did you mean 'offsets'?");
}

static void test_source_requirements(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  p: {kind: poll, interval: 5s}\n"
				 "  k: {kind: kafka}\n"
				 "  c: {kind: postgres_cdc, publication: pub}\n"
				 "  ad: {kind: adopted, cursor: id}\n"
				 "  ok: {kind: kafka, brokers: b, topic: t}\n"
				 "  bad-name: {kind: webhook}\n"
				 "  late: {kind: webhook, lateness: 5m}\n"),
			 SL_E_CONFIG);
	assert_int_equal(f->diags.n, 8);
	diag_expect(f, "lateness without event_time for source 'late'", 9, 3,
		    "add event_time: COLUMN, the time lateness counts back from");
	diag_expect(f, "missing 'url' for poll source 'p'", 3, 3, NULL);
	diag_expect(f, "missing 'brokers' for kafka source 'k'", 4, 3, NULL);
	diag_expect(f, "missing 'topic' for kafka source 'k'", 4, 3, NULL);
	diag_expect(f, "missing 'dsn_env' for postgres_cdc source 'c'", 5, 3, NULL);
	diag_expect(f, "missing 'slot' for postgres_cdc source 'c'", 5, 3, NULL);
	diag_expect(f, "missing 'table' for adopted source 'ad'", 6, 3, NULL);
	diag_expect(f, "invalid source name 'bad-name'", 8, 3,
		    "use letters, digits and '_', not starting with a digit");
	assert_int_equal(f->cfg.nsources, 6);
}

static void test_cdc_keys(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  orders: {kind: postgres_cdc, dsn_env: D, slot: s1, publication: p1, "
				 "create: true}\n"
				 "  items: {kind: postgres_cdc, dsn_env: D, slot: s1, publication: p1, "
				 "create: true, table: shop.line_items}\n"),
			 0);
	assert_string_equal(f->cfg.sources[0].table, "public.orders");
	assert_true(f->cfg.sources[0].create);
	assert_string_equal(f->cfg.sources[1].table, "shop.line_items");
	assert_string_equal(f->cfg.sources[0].snapshot, "initial");
	assert_int_equal(f->cfg.sources[0].status_interval_ms, 10000);

	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  a: {kind: postgres_cdc, dsn_env: D, slot: s, publication: p, "
				 "status_interval: 2s}\n"),
			 0);
	assert_int_equal(f->cfg.sources[0].status_interval_ms, 2000);
	/* a table without its schema is in public */
	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  a: {kind: postgres_cdc, dsn_env: D, slot: s, publication: p, "
				 "table: line_items}\n"),
			 0);
	assert_string_equal(f->cfg.sources[0].table, "public.line_items");
	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  a: {kind: postgres_cdc, dsn_env: D, slot: s, publication: p, "
				 "status_interval: 0s}\n"
				 "  b: {kind: postgres_cdc, dsn_env: D, slot: t, publication: p}\n"
				 "  c: {kind: postgres_cdc, dsn_env: D, slot: t, publication: p, "
				 "status_interval: 5s}\n"
				 "  w: {kind: webhook, status_interval: 5s}\n"),
			 SL_E_CONFIG);
	diag_expect(f, "invalid duration 0 for 'sources.a.status_interval'", 3, 81,
		    "the consumer tells the server it is alive this often: write e.g. 10s");
	diag_expect(f, "source 'c' shares slot 't' with 'b' but not its 'status_interval'", 5, 3,
		    "sources of one slot are read by one consumer");
	diag_expect(f, "'status_interval' applies to postgres_cdc sources only, not to webhook "
		       "source 'w'",
		    6, 22, NULL);

	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  a: {kind: postgres_cdc, dsn_env: D, slot: Bad-Slot, publication: p}\n"
				 "  b: {kind: postgres_cdc, dsn_env: D, slot: s, publication: 'p q', "
				 "table: 'x.y.z'}\n"
				 "  c: {kind: postgres_cdc, dsn_env: E, slot: s, publication: 'p q'}\n"
				 "  d: {kind: postgres_cdc, dsn_env: D, slot: t, publication: p, create: "
				 "maybe,\n"
				 "      columns: {id: BIGINT}}\n"
				 "  w: {kind: webhook, create: true}\n"
				 "  e: {kind: postgres_cdc, dsn_env: D, slot: t, publication: p, "
				 "snapshot: inital}\n"
				 "  f: {kind: postgres_cdc, dsn_env: D, slot: u, publication: p}\n"
				 "  g: {kind: postgres_cdc, dsn_env: D, slot: u, publication: p, "
				 "snapshot: never}\n"
				 "  k: {kind: kafka, brokers: b, topic: t, snapshot: never}\n"),
			 SL_E_CONFIG);
	diag_expect(f, "invalid slot 'Bad-Slot' for 'sources.a.slot'", 3, 45,
		    "use lowercase letters, digits and '_', at most 63");
	diag_expect(f, "invalid publication 'p q' for 'sources.b.publication'", 4, 61,
		    "use letters, digits and '_', at most 63");
	diag_expect(f, "invalid table 'x.y.z' for 'sources.b.table'", 4, 75,
		    "write the source table as schema.name, e.g. public.orders");
	diag_expect(f, "source 'c' shares slot 's' with 'b' but not its 'dsn_env'", 5, 3,
		    "sources of one slot are read by one consumer");
	diag_expect(f, "invalid boolean 'maybe' for 'sources.d.create'", 6, 72,
		    "write true or false");
	diag_expect(f, "'columns' does not apply to postgres_cdc source 'd': each change lands "
		       "as its row's payload JSON", 7, 7, "read the values from payload in a model");
	diag_expect(f, "'create' applies to postgres_cdc sources only, not to webhook source 'w'",
		    8, 22, NULL);
	diag_expect(f, "unknown value 'inital' for 'sources.e.snapshot'", 9, 74,
		    "did you mean 'initial'?");
	diag_expect(f, "source 'g' shares slot 'u' with 'f' but not its 'snapshot'", 11, 3,
		    "sources of one slot are read by one consumer");
	diag_expect(f, "'snapshot' applies to postgres_cdc sources only, not to kafka source 'k'",
		    12, 42, NULL);
}

/* A kafka source's format: json or debezium, and only on kafka sources. */
static void test_kafka_keys(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  k: {kind: kafka, brokers: b, topic: t, format: debezium}\n"),
			 0);
	assert_string_equal(f->cfg.sources[0].format, "debezium");
	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  k: {kind: kafka, brokers: b, topic: t, format: avro}\n"
				 "  w: {kind: webhook, format: json}\n"),
			 SL_E_CONFIG);
	diag_expect(f, "unknown value 'avro' for 'sources.k.format'", 3, 50,
		    "expected one of json, debezium");
	diag_expect(f, "'format' applies to kafka sources only, not to webhook source 'w'", 4,
		    22, NULL);
}

/* An adopted source in mode offsets names the columns of a position,
 * which only adopted sources take. */
static void test_adopted_offsets_keys(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  a: {kind: adopted, table: raw.a, cursor: id, boundary: offsets,\n"
				 "      partition_column: part, offset_column: pos}\n"),
			 0);
	assert_string_equal(f->cfg.sources[0].partition_column, "part");
	assert_string_equal(f->cfg.sources[0].offset_column, "pos");
	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  a: {kind: adopted, table: raw.a, cursor: id, boundary: offsets}\n"
				 "  w: {kind: webhook, offset_column: pos}\n"),
			 SL_E_CONFIG);
	diag_expect(f,
		    "boundary 'offsets' of source 'a': mode offsets reads a position from two "
		    "columns of the table: declare partition_column and offset_column",
		    3, 48, NULL);
	diag_expect(f, "'offset_column' applies to adopted sources only, not to webhook source 'w'",
		    4, 22, NULL);
}

/* A kafka source's topics: one name or a list of names, each once and as
 * Kafka spells them; its properties: names as librdkafka's are written,
 * values with ${NAME} references checked, each with its line. */
static void test_kafka_topics_and_properties(void **state)
{
	struct fixture *f = *state;
	const struct source_cfg *s;

	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  k:\n"
				 "    kind: kafka\n"
				 "    brokers: b\n"
				 "    topic: [clicks, views.v2]\n"
				 "    properties:\n"
				 "      fetch.wait.max.ms: 50\n"
				 "      sasl.password: \"${KAFKA_PASSWORD}\"\n"),
			 0);
	s = &f->cfg.sources[0];
	assert_int_equal(s->ntopics, 2);
	assert_string_equal(s->topics[1], "views.v2");
	assert_int_equal(s->nproperties, 2);
	assert_string_equal(s->properties[0].name, "fetch.wait.max.ms");
	assert_string_equal(s->properties[0].value, "50");
	assert_int_equal(s->properties[0].line, 8);
	assert_string_equal(s->properties[1].value, "${KAFKA_PASSWORD}");
	assert_int_equal(s->properties[1].line, 9);
	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  a: {kind: kafka, brokers: b, topic: []}\n"
				 "  b: {kind: kafka, brokers: b, topic: [x, \"bad:name\", x]}\n"
				 "  c: {kind: kafka, brokers: b, topic: t, properties: {Bad: 1}}\n"
				 "  d: {kind: kafka, brokers: b, topic: t, properties: {a.b: \"${X\"}}\n"
				 "  e: {kind: webhook, properties: {a: 1}}\n"),
			 SL_E_CONFIG);
	diag_expect(f, "no topic in 'sources.a.topic'", 3, 39,
		    "write topic: clicks, or topic: [clicks, views]");
	diag_expect(f, "invalid topic 'bad:name' for 'sources.b.topic'", 4, 43,
		    "use letters, digits, '.', '_' and '-', at most 249");
	diag_expect(f, "topic 'x' twice in 'sources.b.topic'", 4, 55, "name each topic once");
	diag_expect(f, "invalid property name 'Bad' in 'sources.c.properties'", 5, 55,
		    "name a librdkafka property, e.g. fetch.wait.max.ms");
	diag_expect(f, "invalid value for property 'sources.d.properties.a.b'", 6, 60,
		    "close ${NAME} with '}'");
	diag_expect(f, "'properties' applies to kafka sources only, not to webhook source 'e'", 7,
		    22, NULL);
}

static void test_poll_keys(void **state)
{
	struct fixture *f = *state;
	const struct source_cfg *s;

	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  rates:\n"
				 "    kind: poll\n"
				 "    url: \"https://api.example.com/v1/rates?limit=100\"\n"
				 "    interval: 1m\n"
				 "    timeout: 5s\n"
				 "    cursor: updated_at\n"
				 "    cursor_param: updated_since\n"
				 "    json_path: data.items\n"
				 "    headers:\n"
				 "      Authorization: \"Bearer ${RATES_TOKEN}\"\n"
				 "      X-Client: sluice $5\n"
				 "    columns: {id: BIGINT}\n"
				 "  plain: {kind: poll, url: \"http://x/\"}\n"
				 "  hook: {kind: webhook}\n"),
			 0);
	s = source_find(&f->cfg, "rates");
	assert_string_equal(s->url, "https://api.example.com/v1/rates?limit=100");
	assert_int_equal(s->interval_ms, 60000);
	assert_int_equal(s->timeout_ms, 5000);
	assert_string_equal(s->cursor, "updated_at");
	assert_string_equal(s->cursor_param, "updated_since");
	assert_string_equal(s->json_path, "data.items");
	assert_int_equal(s->nheaders, 2);
	assert_string_equal(s->headers[0].name, "Authorization");
	/* kept as written: the environment is read when a request is made */
	assert_string_equal(s->headers[0].value, "Bearer ${RATES_TOKEN}");
	assert_string_equal(s->headers[1].value, "sluice $5");
	s = source_find(&f->cfg, "plain");
	assert_int_equal(s->interval_ms, 30000);
	assert_int_equal(s->timeout_ms, 30000);
	assert_null(s->cursor_param);
	assert_null(s->json_path);
	assert_int_equal(s->nheaders, 0);
	assert_int_equal(source_find(&f->cfg, "hook")->timeout_ms, 0);
}

static void test_poll_errors(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\n"
				 "sources:\n"
				 "  a: {kind: poll, url: \"ftp://x/\", interval: 0}\n"
				 "  b: {kind: poll, url: \"http://x/\", cursor_param: after, json_path: "
				 "\"data..items\", timeout: 0}\n"
				 "  c:\n"
				 "    kind: poll\n"
				 "    url: \"http://x/\"\n"
				 "    cursor: id\n"
				 "    cursor_param: \"a b\"\n"
				 "    headers:\n"
				 "      \"Bad Name\": x\n"
				 "      X-Token: \"${TOKEN\"\n"
				 "      X-Empty:\n"
				 "      X-Var: \"${1X}\"\n"
				 "      X-List: [a]\n"
				 "  d: {kind: webhook, headers: {A: b}, json_path: x}\n"
				 "  e: {kind: poll, url: \"http://x/\", interval: often}\n"),
			 SL_E_CONFIG);
	diag_expect(f, "invalid url 'ftp://x/' for 'sources.a.url' (http or https only)", 3, 24,
		    "write e.g. https://api.example.com/v1/rates");
	diag_expect(f, "invalid duration 0 for 'sources.a.interval'", 3, 46,
		    "a poll source asks its API this often: write e.g. 30s");
	diag_expect(f, "'sources.b.cursor_param' needs a cursor", 4, 37,
		    "add cursor: COLUMN, the field whose highest value is sent");
	diag_expect(f, "invalid json_path 'data..items' for 'sources.b'", 4, 69,
		    "write the keys from the top of the response, separated by dots, e.g. "
		    "data.items");
	diag_expect(f, "invalid duration 0 for 'sources.b.timeout'", 4, 93,
		    "a request needs time to be answered: write e.g. 10s");
	diag_expect(f, "invalid query parameter 'a b' for 'sources.c.cursor_param'", 9, 19,
		    "use letters, digits, '-', '.', '_' or '~'");
	diag_expect(f, "invalid header name 'Bad Name' in 'sources.c.headers'", 11, 7,
		    "use letters, digits and '-', e.g. X-Api-Key");
	diag_expect(f, "invalid value for header 'sources.c.headers.X-Token'", 12, 16,
		    "close ${NAME} with '}'");
	diag_expect(f, "missing value for header 'sources.c.headers.X-Empty'", 13, 7,
		    "write e.g. Authorization: \"Bearer ${API_TOKEN}\"");
	diag_expect(f, "invalid value for header 'sources.c.headers.X-Var'", 14, 14,
		    "write ${NAME} with a variable name of letters, digits and '_'");
	diag_expect(f, "expected a scalar for 'sources.c.headers.X-List', not a list", 15, 15, NULL);
	diag_expect(f, "'headers' applies to poll sources only, not to webhook source 'd'", 16, 22,
		    NULL);
	diag_expect(f, "'json_path' applies to poll sources only, not to webhook source 'd'", 16,
		    39, NULL);
	diag_expect(f, "invalid duration 'often' for 'sources.e.interval'", 17, 47,
		    "write e.g. 200ms, 10s, 5m, 1h, 7d");
	assert_int_equal(f->diags.n, 14);
}

static void test_warehouse_and_replay(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\n"
				 "warehouse: {type: postgres}\n"
				 "replay:\n"
				 "  bounded_replay_fallback: bounded\n"
				 "  replay_on_change: {breaking: partial, "
				 "non_breaking: bounded-soon}\n"),
			 SL_E_CONFIG);
	assert_int_equal(f->diags.n, 4);
	diag_expect(f, "missing 'warehouse.dsn_env' for a postgres warehouse", 2, 1,
		    "set dsn_env to the variable that holds the connection string");
	diag_expect(f, "unknown value 'bounded' for 'replay.bounded_replay_fallback'", 4, 28,
		    "expected one of full, bounded_without_history");
	diag_expect(f, "invalid replay policy 'partial' for 'replay.replay_on_change.breaking'", 5,
		    32, "write full or bounded-DURATION, e.g. bounded-7d");
	diag_expect(f,
		    "invalid replay policy 'bounded-soon' for "
		    "'replay.replay_on_change.non_breaking'",
		    5, 55, "write full or bounded-DURATION, e.g. bounded-7d");
}

static void test_warehouse_type(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\nwarehouse:\n  type: duckbd\n"), SL_E_CONFIG);
	assert_int_equal(f->diags.n, 1);
	diag_expect(f, "unknown value 'duckbd' for 'warehouse.type'", 3, 9,
		    "did you mean 'duckdb'?");
	assert_string_equal(f->cfg.warehouse.type, "duckdb");
}

static void test_duplicates(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\n"
				 "live: {debounce: 1s}\n"
				 "sources:\n"
				 "  a: {kind: webhook, columns: {x: INT, x: BIGINT}}\n"
				 "  a: {kind: poll}\n"
				 "live: {debounce: 2s, debounce: 3s}\n"),
			 SL_E_CONFIG);
	assert_int_equal(f->diags.n, 3);
	diag_expect(f, "duplicate key 'sources.a.columns.x' in sluice.yml", 4, 40,
		    "first set on line 4");
	diag_expect(f, "duplicate key 'sources.a' in sluice.yml", 5, 3, "first set on line 4");
	diag_expect(f, "duplicate key 'live' in sluice.yml", 6, 1, "first set on line 2");
	/* the first of two equal keys counts */
	assert_int_equal(f->cfg.live.debounce_ms, 1000);
	assert_int_equal(f->cfg.nsources, 1);
	assert_int_equal(f->cfg.sources[0].ncolumns, 1);
	assert_string_equal(f->cfg.sources[0].columns[0].type, "INT");
}

static void test_many_errors(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "warehouse: {type: oracle}\n"
				 "live:\n"
				 "  enabled: sometimes\n"
				 "  debounce: fast\n"
				 "  max_latecy: 5s\n"
				 "server: {max_body: lots}\n"
				 "sources:\n"
				 "  r: {kind: poll}\n"),
			 SL_E_CONFIG);
	assert_int_equal(f->diags.n, 7);
	diag_expect(f, "missing required key 'name' in sluice.yml", 1, 1,
		    "add e.g. 'name: shop' at the top");
	diag_find(f, "unknown value 'oracle'");
	diag_find(f, "invalid boolean 'sometimes'");
	diag_find(f, "invalid duration 'fast'");
	diag_expect(f, "unknown key 'live.max_latecy' in sluice.yml", 5, 3,
		    "did you mean 'max_latency'?");
	diag_find(f, "invalid size 'lots'");
	diag_find(f, "missing 'url' for poll source 'r'");
}

static void test_missing_name(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, ""), SL_E_CONFIG);
	assert_int_equal(f->diags.n, 1);
	diag_expect(f, "missing required key 'name' in sluice.yml", 1, 1,
		    "add e.g. 'name: shop' at the top");
	defaults_check(&f->cfg);

	f->diags.n = 0;
	assert_int_equal(load(f, "# only a comment\n\n# and another\n"), SL_E_CONFIG);
	assert_int_equal(f->diags.n, 1);
	diag_find(f, "missing required key 'name'");

	f->diags.n = 0;
	assert_int_equal(load(f, "live: {}\nname:\n"), SL_E_CONFIG);
	assert_int_equal(f->diags.n, 1);
	diag_expect(f, "missing value for 'name' in sluice.yml", 2, 1, "write e.g. 'name: shop'");
}

static void test_root_not_mapping(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "- name: shop\n"), SL_E_CONFIG);
	assert_int_equal(f->diags.n, 1);
	diag_expect(f, "expected a mapping at the top of sluice.yml, not a list", 1, 1, NULL);
}

static void test_malformed_yaml(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\nlive:\n  debounce: 1s: 2s\n"), SL_E_CONFIG);
	assert_int_equal(f->diags.n, 1);
	diag_expect(f, "invalid YAML: mapping values are not allowed in this context", 3, 15,
		    "check the indentation, and quote a value that holds ': '");

	f->diags.n = 0;
	assert_int_equal(load(f, "name: shop\nlive: {debounce: 1s\nserver: {}\n"), SL_E_CONFIG);
	assert_int_equal(f->diags.n, 1);
	assert_int_equal(f->diags.items[0].line, 3);
	assert_string_equal(f->diags.items[0].msg,
			    "invalid YAML: did not find expected ',' or '}'");
	assert_string_equal(f->diags.items[0].hint,
			    "while parsing a flow mapping that starts on line 2");

	f->diags.n = 0;
	assert_int_equal(load(f, "name: shop\n\tlive: x\n"), SL_E_CONFIG);
	assert_int_equal(f->diags.n, 1);
	assert_int_equal(f->diags.items[0].line, 2);
	assert_int_equal(f->diags.items[0].col, 1);
	assert_string_equal(f->diags.items[0].msg,
			    "invalid YAML: found a tab character that violates indentation");
	assert_string_equal(f->diags.items[0].hint, "indent with spaces, not tabs");
}

static void test_bad_utf8(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\nalerts: {command: \"a\xff\"}\n"), SL_E_CONFIG);
	assert_int_equal(f->diags.n, 1);
	assert_int_equal(f->diags.items[0].line, 2);
	assert_string_equal(f->diags.items[0].msg, "'sluice.yml' is not UTF-8 text");
	assert_string_equal(f->diags.items[0].hint,
			    "sluice reads its files as UTF-8 text: save it as such");
}

/* A NUL byte ends a C string: the file would read as the text before it,
 * or as nothing. */
static void test_nul_byte(void **state)
{
	struct fixture *f = *state;
	int fd;

	strcpy(f->path, "/tmp/sluice-test-config-XXXXXX");
	fd = mkstemp(f->path);
	assert_int_equal(write(fd, "\0name: shop\n", 12), 12);
	close(fd);
	assert_int_equal(project_cfg_load(f->a, f->path, "sluice.yml", &f->cfg, &f->diags),
			 SL_E_CONFIG);
	assert_int_equal(f->diags.n, 1);
	assert_int_equal(f->diags.items[0].line, 1);
	assert_string_equal(f->diags.items[0].msg, "'sluice.yml' holds a NUL byte");
	f->diags.n = 0;
	assert_int_equal(pipeline_cfg_load(f->a, f->path, "models/g/pipeline.yml", &f->kv,
					   &f->diags),
			 SL_E_CONFIG);
	assert_string_equal(f->diags.items[0].msg, "'models/g/pipeline.yml' holds a NUL byte");
}

/* What is not a regular file once links are followed is refused before a
 * byte is read: a FIFO would block, a device never ends (or ends at once,
 * reading as an empty file). So is a file past the size limit. */
static void test_not_a_regular_file(void **state)
{
	struct fixture *f = *state;
	char fifo[64] = "/tmp/sluice-test-fifo-XXXXXX", link[64] = "/tmp/sluice-test-link-XXXXXX";
	char *big = malloc(PROJECT_TEXT_MAX + 2);
	int fd;

	assert_non_null(mkdtemp(fifo));
	strcat(fifo, "/p");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(pipeline_cfg_load(f->a, fifo, "models/g/pipeline.yml", &f->kv, &f->diags),
			 SL_E_IO);
	assert_int_equal(f->diags.n, 1);
	assert_string_equal(f->diags.items[0].msg,
			    "'models/g/pipeline.yml' is a FIFO, not a regular file");
	assert_string_equal(f->diags.items[0].file, "models/g/pipeline.yml");
	unlink(fifo);
	*strrchr(fifo, '/') = '\0';
	rmdir(fifo);

	f->diags.n = 0;
	assert_non_null(mkdtemp(link));
	strcat(link, "/l");
	assert_int_equal(symlink("/dev/urandom", link), 0);
	assert_int_equal(project_cfg_load(f->a, link, "sluice.yml", &f->cfg, &f->diags), SL_E_IO);
	assert_string_equal(f->diags.items[0].msg,
			    "'sluice.yml' is a character device, not a regular file");
	unlink(link);
	*strrchr(link, '/') = '\0';
	rmdir(link);

	f->diags.n = 0;
	memset(big, '#', PROJECT_TEXT_MAX + 1);
	big[PROJECT_TEXT_MAX + 1] = '\0';
	strcpy(f->path, "/tmp/sluice-test-config-XXXXXX");
	fd = mkstemp(f->path);
	assert_int_equal(write(fd, big, PROJECT_TEXT_MAX + 1), (ssize_t)PROJECT_TEXT_MAX + 1);
	close(fd);
	free(big);
	assert_int_equal(project_cfg_load(f->a, f->path, "sluice.yml", &f->cfg, &f->diags),
			 SL_E_CONFIG);
	assert_string_equal(f->diags.items[0].msg,
			    "'sluice.yml' is larger than such a file may be (4 MiB)");
	/* at the limit itself it is read (a comment, all of it) */
	f->diags.n = 0;
	assert_int_equal(truncate(f->path, PROJECT_TEXT_MAX), 0);
	assert_int_equal(pipeline_cfg_load(f->a, f->path, "pipeline.yml", &f->kv, &f->diags), 0);
}

static void test_two_documents(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\n---\nname: other\n"), SL_E_CONFIG);
	assert_int_equal(f->diags.n, 1);
	diag_expect(f, "more than one YAML document in sluice.yml", 3, 1,
		    "keep one document per file and remove the '---' line");
}

static void test_unreadable(void **state)
{
	struct fixture *f = *state;
	const struct diag *d;

	assert_int_equal(project_cfg_load(f->a, "/nonexistent/sluice.yml", "sluice.yml", &f->cfg,
					  &f->diags),
			 SL_E_IO);
	assert_int_equal(f->diags.n, 1);
	d = &f->diags.items[0];
	assert_string_equal(d->msg,
			    "cannot read '/nonexistent/sluice.yml': No such file or directory");
	assert_string_equal(d->file, "sluice.yml");

	f->diags.n = 0;
	assert_int_equal(pipeline_cfg_load(f->a, "/tmp", "pipeline.yml", &f->kv, &f->diags),
			 SL_E_IO);
	assert_int_equal(f->diags.n, 1);
	assert_string_equal(f->diags.items[0].msg, "'pipeline.yml' is a folder, not a regular file");
}

static void test_earlier_errors_kept(void **state)
{
	struct fixture *f = *state;

	diag_add(&f->diags, DIAG_ERROR, "models/a.sql", 1, 1, NULL, "something else");
	assert_int_equal(load(f, "name: shop\n"), 0);
	assert_int_equal(f->diags.n, 1);
}

static void test_pipeline(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load_pipeline(f, "materialized: incremental\n"
					  "unique_key: [order_id, region]\n"
					  "tags:\n"
					  "  - gold\n"
					  "  - 'daily'\n"
					  "grain: 1d   # comment\n"
					  "empty: []\n"
					  "quoted: \"a b\"\n"
					  "number: 7\n"),
			 0);
	assert_int_equal(f->diags.n, 0);
	assert_int_equal(f->kv.n, 7);
	assert_string_equal(f->kv.items[0].key, "materialized");
	assert_string_equal(f->kv.items[0].value, "incremental");
	assert_int_equal(f->kv.items[0].line, 1);
	assert_string_equal(f->kv.items[1].key, "unique_key");
	assert_string_equal(f->kv.items[1].value, "[order_id, region]");
	assert_int_equal(f->kv.items[1].line, 2);
	assert_string_equal(f->kv.items[2].key, "tags");
	assert_string_equal(f->kv.items[2].value, "[gold, daily]");
	assert_int_equal(f->kv.items[2].line, 3);
	assert_string_equal(f->kv.items[3].value, "1d");
	assert_int_equal(f->kv.items[3].line, 6);
	assert_string_equal(f->kv.items[4].value, "[]");
	assert_string_equal(f->kv.items[5].value, "a b");
	assert_string_equal(f->kv.items[6].value, "7");

	assert_int_equal(load_pipeline(f, "# nothing yet\n"), 0);
	assert_int_equal(f->kv.n, 0);
}

static void test_pipeline_many_keys(void **state)
{
	struct fixture *f = *state;
	char text[2048] = "";
	char key[32];

	for (int i = 0; i < 40; i++) {
		snprintf(key, sizeof(key), "k%d: v%d\n", i, i);
		strcat(text, key);
	}
	assert_int_equal(load_pipeline(f, text), 0);
	assert_int_equal(f->kv.n, 40);
	for (int i = 0; i < 40; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		assert_string_equal(f->kv.items[i].key, key);
		assert_int_equal(f->kv.items[i].line, i + 1);
	}
}

static void test_pipeline_errors(void **state)
{
	struct fixture *f = *state;
	const struct diag *d;

	assert_int_equal(load_pipeline(f, "materialized: table\n"
					  "replay_on_change:\n"
					  "  breaking: full\n"
					  "unique_key: [a, [b, c]]\n"
					  "materialized: view\n"
					  "grain:\n"
					  "ok: yes\n"),
			 SL_E_CONFIG);
	assert_int_equal(f->diags.n, 4);
	d = diag_find(f, "expected a scalar or a list for 'replay_on_change', not a mapping");
	assert_int_equal(d->line, 3);
	assert_string_equal(d->file, "models/gold/pipeline.yml");
	d = diag_find(f, "expected a value in the list for 'unique_key', not a list");
	assert_int_equal(d->line, 4);
	assert_int_equal(d->col, 17);
	d = diag_find(f, "duplicate key 'materialized' in models/gold/pipeline.yml");
	assert_int_equal(d->line, 5);
	assert_string_equal(d->hint, "first set on line 1");
	d = diag_find(f, "missing value for 'grain'");
	assert_int_equal(d->line, 6);
	assert_int_equal(f->kv.n, 2);
	assert_string_equal(f->kv.items[0].value, "table");
	assert_string_equal(f->kv.items[1].key, "ok");

	f->diags.n = 0;
	assert_int_equal(load_pipeline(f, "a: [b, c\n"), SL_E_CONFIG);
	assert_int_equal(f->diags.n, 1);
	assert_int_equal(f->diags.items[0].line, 2);
	assert_string_equal(f->diags.items[0].file, "models/gold/pipeline.yml");
}

/* 0 where it means "none" or "at once" passes; where nothing would work
 * with it (a runner that never sleeps, retries without a pause, a request
 * that may take no time) it is refused, as is any duration over a year. */
static void test_zero_and_huge_durations(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\n"
				 "live: {min_interval: 0, debounce: 0, max_latency: 0, log_interval: 0,\n"
				 "       assertion_interval: 0, profile_interval: 0, live_interval: 0}\n"),
			 SL_E_CONFIG);
	/* only the misspelt key: every 0 above is allowed */
	assert_int_equal(f->diags.n, 1);
	diag_find(f, "unknown key 'live.live_interval'");
	f->diags.n = 0;
	assert_int_equal(load(f, "name: shop\n"
				 "ingest: {flush_interval: 0}\n"
				 "sources: {o: {kind: webhook, event_time: t, lateness: 0}}\n"),
			 0);

	assert_int_equal(load(f, "name: shop\n"
				 "live:\n"
				 "  poll_interval: 0\n"
				 "  backoff_base: 0s\n"
				 "  backoff_max: 0ms\n"
				 "  max_lag: 0\n"
				 "  profile_interval: 400d\n"
				 "server: {header_timeout: 0, idle_timeout: 0, max_body: 0B, "
				 "min_body_rate: 0}\n"
				 "ingest: {flush_interval: 53w}\n"
				 "sources:\n"
				 "  o: {kind: webhook, event_time: t, lateness: 366d}\n"),
			 SL_E_CONFIG);
	diag_expect(f, "invalid duration 0 for 'live.poll_interval'", 3, 18,
		    "the runner would look for new rows without a pause, busy all the time: write "
		    "e.g. 5s");
	diag_expect(f, "invalid duration 0 for 'live.backoff_base'", 4, 17,
		    "a failing model would be retried at once, over and over: write e.g. 2s");
	diag_expect(f, "invalid duration 0 for 'live.backoff_max'", 5, 16,
		    "a failing model would be retried at once, over and over: write e.g. 300s");
	diag_expect(f, "invalid duration 0 for 'live.max_lag'", 6, 12,
		    "every live model lags a little, so each would count as stale: write e.g. 300s");
	diag_expect(f, "invalid duration '400d' for 'live.profile_interval' (more than a year)", 7,
		    21, "write at most 365d");
	diag_expect(f, "invalid duration 0 for 'server.header_timeout'", 8, 26,
		    "a request needs time to send its header: write e.g. 10s");
	diag_expect(f, "invalid duration 0 for 'server.idle_timeout'", 8, 43,
		    "a connection needs time between requests: write e.g. 60s");
	diag_expect(f, "invalid size 0 for 'server.max_body'", 8, 56,
		    "no request with a body could be read: write e.g. 8MiB");
	diag_expect(f, "invalid size 0 for 'server.min_body_rate'", 8, 75,
		    "a body that arrives at 0 bytes a second never arrives: write e.g. 4KiB");
	diag_expect(f, "invalid duration '53w' for 'ingest.flush_interval' (more than a year)", 9,
		    26, "write at most 365d");
	diag_expect(f, "invalid duration '366d' for 'sources.o.lateness' (more than a year)", 11,
		    47, "write at most 365d");
	assert_int_equal(f->diags.n, 11);
	/* a year itself is fine */
	f->diags.n = 0;
	assert_int_equal(load(f, "name: shop\nlive: {profile_interval: 365d}\n"), 0);
}

/* Retries double from backoff_base up to backoff_max: a base above the cap
 * is refused where it was written, or at the cap when only that was. */
static void test_backoff_order(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "name: shop\nlive: {backoff_base: 10m, backoff_max: 1m}\n"),
			 SL_E_CONFIG);
	diag_expect(f, "'live.backoff_base' (10m00s) is more than 'live.backoff_max' (1m00s)", 2, 8,
		    "retries start at backoff_base and double up to backoff_max: make backoff_max "
		    "the larger");
	f->diags.n = 0;
	/* the default base is 2s */
	assert_int_equal(load(f, "name: shop\nlive:\n  backoff_max: 1s\n"), SL_E_CONFIG);
	diag_expect(f, "'live.backoff_base' (2.00s) is more than 'live.backoff_max' (1.00s)", 3, 3,
		    "retries start at backoff_base and double up to backoff_max: make backoff_max "
		    "the larger");
	f->diags.n = 0;
	assert_int_equal(load(f, "name: shop\nlive: {backoff_base: 1m, backoff_max: 1m}\n"), 0);
	assert_int_equal(load(f, "name: shop\nlive: {backoff_base: 1s}\n"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
		T(test_design_example),
		T(test_block_style),
		T(test_defaults),
		T(test_source_defaults),
		T(test_unknown_keys),
		T(test_bad_duration),
		T(test_bad_size_number_bool),
		T(test_shapes),
		T(test_source_kind),
		T(test_source_requirements),
		T(test_cdc_keys),
		T(test_poll_keys),
		T(test_kafka_keys),
		T(test_adopted_offsets_keys),
		T(test_kafka_topics_and_properties),
		T(test_poll_errors),
		T(test_warehouse_and_replay),
		T(test_warehouse_type),
		T(test_duplicates),
		T(test_many_errors),
		T(test_missing_name),
		T(test_root_not_mapping),
		T(test_malformed_yaml),
		T(test_bad_utf8),
		T(test_nul_byte),
		T(test_not_a_regular_file),
		T(test_two_documents),
		T(test_unreadable),
		T(test_earlier_errors_kept),
		T(test_pipeline),
		T(test_pipeline_many_keys),
		T(test_pipeline_errors),
		T(test_zero_and_huge_durations),
		T(test_backoff_order),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
