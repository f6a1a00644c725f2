/*
 * webembed: writes the C table of the UI's files, so that `sluice serve`
 * carries web/ inside the binary. Each file becomes its bytes, its path
 * under web/, its content type (from its extension: an extension it does
 * not know is an error, never a guess) and a strong ETag (a digest of the
 * bytes). The table is sorted by path for server/assets.c's binary
 * search; the output depends on the files' contents only.
 *
 *   webembed OUT.c WEBDIR FILE...     FILE paths start with WEBDIR/
 */
#include <openssl/sha.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *ext, *type;
} types[] = {
	{ ".html", "text/html; charset=utf-8" },
	{ ".js", "text/javascript; charset=utf-8" },
	{ ".css", "text/css; charset=utf-8" },
	{ ".svg", "image/svg+xml" },
	{ ".png", "image/png" },
	{ ".ico", "image/x-icon" },
	{ ".json", "application/json" },
	{ ".txt", "text/plain; charset=utf-8" },
};

static const char *type_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	for (size_t i = 0; dot && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(dot, types[i].ext) == 0)
			return types[i].type;
	return NULL;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (data = malloc((size_t)n + 1)) && fread(data, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(data);
		data = NULL;
	}
	fclose(f);
	return data;
}

/* One file: its bytes as an array named a<i>, then its row for the table. */
static int emit_file(FILE *out, FILE *rows, size_t i, const char *file, const char *rel)
{
	unsigned char digest[SHA256_DIGEST_LENGTH];
	const char *type = type_of(rel);
	size_t len = 0;
	unsigned char *data;

	if (!type) {
		fprintf(stderr, "webembed: %s: unknown extension (add it to tools/webembed.c)\n",
			file);
		return 1;
	}
	if (strpbrk(rel, "\"\\")) {
		fprintf(stderr, "webembed: %s: a path with a quote or a backslash\n", file);
		return 1;
	}
	data = slurp(file, &len);
	if (!data) {
		fprintf(stderr, "webembed: cannot read %s\n", file);
		return 1;
	}
	SHA256(data, len, digest);
	fprintf(out, "static const unsigned char a%zu[] = {", i);
	for (size_t k = 0; k < len; k++)
		fprintf(out, "%s%u,", k % 24 ? "" : "\n\t", data[k]);
	/* an empty file still needs an element */
	fprintf(out, "%s\n};\n", len ? "" : "0");
	fprintf(rows, "\t{ \"%s\", \"%s\", \"\\\"", rel, type);
	for (size_t k = 0; k < 16; k++)
		fprintf(rows, "%02x", digest[k]);
	fprintf(rows, "\\\"\", a%zu, %zu },\n", i, len);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	const char *outpath, *dir;
	size_t dirlen, n;
	char **files, *rows = NULL;
	size_t rowslen = 0;
	FILE *out, *rowsf;
	int bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: webembed OUT.c WEBDIR FILE...\n");
		return 2;
	}
	outpath = argv[1];
	dir = argv[2];
	dirlen = strlen(dir);
	n = (size_t)argc - 3;
	files = argv + 3;
	qsort(files, n, sizeof(*files), by_path);
	out = fopen(outpath, "w");
	rowsf = open_memstream(&rows, &rowslen);
	if (!out || !rowsf) {
		fprintf(stderr, "webembed: cannot write %s\n", outpath);
		return 1;
	}
	fprintf(out, "/* The UI's files (web/), written by tools/webembed: do not edit. */\n"
		     "#include \"server/assets.h\"\n\n");
	for (size_t i = 0; i < n && !bad; i++) {
		const char *rel = files[i] + dirlen;

		if (strncmp(files[i], dir, dirlen) || rel[0] != '/') {
			fprintf(stderr, "webembed: %s is not under %s/\n", files[i], dir);
			bad = 1;
			break;
		}
		bad = emit_file(out, rowsf, i, files[i], rel + 1);
	}
	fclose(rowsf);
	fprintf(out, "\nconst struct web_asset web_assets[] = {\n%s\t{ 0 }\n};\n"
		     "const size_t web_nassets = %zu;\n", rows ? rows : "", n);
	free(rows);
	if (fclose(out) || bad) {
		remove(outpath);
		return 1;
	}
	return 0;
}
