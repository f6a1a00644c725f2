/*
 * Test tool: a mutation fuzzer for the parsers that read user files and
 * requests: the model header (header_parse, header_apply_settings), the
 * reference finder on the query's parse tree (refs_scan_placeholders,
 * refs_find), sluice.yml and pipeline.yml, and webhook bodies
 * (webhook_parse). Starts from the seed files given, mutates them (byte
 * flips, insertions of grammar tokens, deletions, splices) and feeds every
 * result to the parser. It passes when nothing crashes (run it in the
 * sanitizer build to catch memory errors) and every call returns a known
 * code.
 *   fuzz_parsers ITERATIONS SEED_FILE...
 * Seeds ending in .sql go to the header parser, .json and .ndjson files to
 * the webhook parser (as a document, as NDJSON), .yml files to both YAML
 * loaders. The random generator is seeded with a fixed value, so a failure
 * is repeatable.
 */
#include "core/arena.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/err.h"
#include "ingest/webhook.h"
#include "project/config.h"
#include "project/header.h"
#include "project/refs.h"
#include "warehouse/sqlparse.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static const char *const tokens[] = {
	"@config ", "@assert ", "@upstream ", "=", ",", "[", "]", "'", "''", "\n", "\n  ",
	"--", "{this}", "{since}", "{watermark:", "incremental_filter=", "materialized=",
	"unique_key=", ":", "- ", "{", "}", "\"", "#", "\t", "warn:", "not_null(", ")",
	"accepted_values(x, [", "relationships(a, b.c(d))", "rows: SELECT", "&a", "*a",
	"!!str ", "\xff", "\xc3", "live: {debounce: ", "10s", "8MiB", "true",
	"null", "1e999", "-0.5e-3", "99999999999999999999", "\\u0000", "\\ud800", "\\\"",
	"[[[[[[[[", "{\"a\":", "\"2024-02-30T25:00:00+16:00\"", "\"1e400\"", "\r\n",
};

static void mutate(const struct buf *seed, struct buf *out)
{
	size_t rounds = 1 + rnd() % 8;

	buf_reset(out);
	buf_add(out, seed->buf, seed->len);
	for (size_t r = 0; r < rounds; r++) {
		size_t at = out->len ? rnd() % (out->len + 1) : 0;
		struct buf next = BUF_INIT;

		buf_add(&next, out->buf, at);
		switch (rnd() % 4) {
		case 0: /* flip a byte */
			if (at < out->len) {
				buf_addch(&next, (char)(out->buf[at] ^ (1 << (rnd() % 8))));
				at++;
			}
			break;
		case 1: /* insert a token */
			buf_adds(&next, tokens[rnd() % (sizeof(tokens) / sizeof(*tokens))]);
			break;
		case 2: /* delete a run */
			at += rnd() % 16;
			if (at > out->len)
				at = out->len;
			break;
		default: /* duplicate a run from elsewhere */
			if (out->len) {
				size_t from = rnd() % out->len;
				size_t n = rnd() % 32;

				if (from + n > out->len)
					n = out->len - from;
				buf_add(&next, out->buf + from, n);
			}
		}
		buf_add(&next, out->buf + at, out->len - at);
		buf_release(out);
		*out = next;
	}
}

static int known(int rc)
{
	return rc == 0 || rc == SL_E_PARSE || rc == SL_E_CONFIG || rc == SL_E_IO;
}

static struct sqlparse *parser;

static int fuzz_header(const struct buf *text)
{
	struct arena *a = arena_new(NULL);
	struct diag_list diags;
	struct model *m = arena_alloc(a, sizeof(*m));
	int rc;

	diag_list_init(&diags, a);
	m->schema = "s";
	m->name = "m";
	m->fqn = "s.m";
	m->path = "models/s/m.sql";
	m->text = arena_strndup(a, text->buf, text->len);
	rc = header_parse(a, m, &diags);
	if (known(rc))
		rc = header_apply_settings(a, m, NULL, NULL, &diags);
	if (known(rc) && m->body && *m->body && refs_scan_placeholders(a, m, &diags) == 0)
		rc = refs_find(parser, a, m, &diags);
	arena_free(a);
	return known(rc) ? 0 : rc;
}

static int fuzz_yaml(const struct buf *text, const char *tmp)
{
	struct arena *a = arena_new(NULL);
	struct diag_list diags;
	struct project_cfg cfg;
	struct kv_list kv = { 0 };
	FILE *f = fopen(tmp, "wb");
	int rc, rc2;

	if (!f) {
		perror(tmp);
		exit(2);
	}
	fwrite(text->buf, 1, text->len, f);
	fclose(f);
	diag_list_init(&diags, a);
	memset(&cfg, 0, sizeof(cfg));
	rc = project_cfg_load(a, tmp, "sluice.yml", &cfg, &diags);
	rc2 = pipeline_cfg_load(a, tmp, "pipeline.yml", &kv, &diags);
	arena_free(a);
	if (!known(rc))
		return rc;
	return known(rc2) ? 0 : rc2;
}

/* A webhook source with a column of every type family webhook_parse
 * checks, and a nested path. */
static struct cfg_column webhook_columns[] = {
	{ "id", "BIGINT" },	     { "tiny", "TINYINT" },	 { "big", "UHUGEINT" },
	{ "amount", "DOUBLE" },	     { "ratio", "FLOAT" },	 { "price", "DECIMAL(10,2)" },
	{ "paid", "BOOLEAN" },	     { "region", "VARCHAR" },	 { "day", "DATE" },
	{ "at", "TIME" },	     { "attz", "TIMETZ" },	 { "ts", "TIMESTAMP" },
	{ "tstz", "TIMESTAMPTZ" },   { "uid", "UUID" },		 { "doc", "JSON" },
	{ "tags", "VARCHAR[]" },     { "customer.id", "INTEGER" },
};
static const struct source_cfg webhook_source = {
	.name = "events",
	.kind = "webhook",
	.columns = webhook_columns,
	.ncolumns = sizeof(webhook_columns) / sizeof(webhook_columns[0]),
};

/* Besides the code: on success, every row has its cells and a payload
 * that is a JSON object again. */
static int fuzz_webhook(const struct buf *text, bool ndjson)
{
	struct arena *a = arena_new(NULL);
	struct webhook_rows rows;
	int rc = webhook_parse(a, &webhook_source, text->buf, text->len, ndjson, &rows, NULL);

	if (rc == 0 && rows.ncols != webhook_source.ncolumns + 1)
		rc = SL_E_INTERNAL;
	for (size_t r = 0; rc == 0 && r < rows.nrows; r++) {
		const char *payload = rows.cells[r * rows.ncols + rows.ncols - 1];
		json_t *again = payload ? json_loads(payload, 0, NULL) : NULL;

		if (!json_is_object(again))
			rc = SL_E_INTERNAL;
		json_decref(again);
	}
	arena_free(a);
	return rc == 0 || rc == SL_E_PARSE || rc == SL_E_INVALID ? 0 : rc;
}

static int read_seed(const char *path, struct buf *out)
{
	FILE *f = fopen(path, "rb");
	char chunk[4096];
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(out, chunk, n);
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/sluice-fuzz-XXXXXX";
	struct buf *seeds;
	struct buf input = BUF_INIT;
	long iterations;
	int nseeds = argc - 2, fd;

	if (argc < 3) {
		fprintf(stderr, "usage: fuzz_parsers ITERATIONS SEED_FILE...\n");
		return 2;
	}
	iterations = atol(argv[1]);
	if (sqlparse_open(&parser, NULL))
		return 2;
	seeds = calloc((size_t)nseeds, sizeof(*seeds));
	fd = mkstemp(tmp);
	if (!seeds || fd < 0)
		return 2;
	close(fd);
	for (int i = 0; i < nseeds; i++) {
		if (read_seed(argv[i + 2], &seeds[i])) {
			perror(argv[i + 2]);
			return 2;
		}
	}
	for (long it = 0; it < iterations; it++) {
		int s = (int)(rnd() % (uint64_t)nseeds);
		const char *name = argv[s + 2];
		int rc;

		mutate(&seeds[s], &input);
		if (strstr(name, ".sql"))
			rc = fuzz_header(&input);
		else if (strstr(name, ".json") || strstr(name, ".ndjson"))
			rc = fuzz_webhook(&input, strstr(name, ".ndjson") != NULL);
		else
			rc = fuzz_yaml(&input, tmp);
		if (rc) {
			fprintf(stderr, "iteration %ld (seed %s): unexpected code %d\n", it, name, rc);
			return 1;
		}
	}
	unlink(tmp);
	for (int i = 0; i < nseeds; i++)
		buf_release(&seeds[i]);
	free(seeds);
	buf_release(&input);
	sqlparse_close(parser);
	printf("fuzzed %ld inputs: no crash, every result a known code\n", iterations);
	return 0;
}
