/*
 * A files source's ledger in memory: the name and content hash of every
 * file it landed, as `_sluice.landed_files` holds them, and what a file
 * found in the folder is by them. The warehouse's table decides in the
 * end (the writer looks a file up again in its landing transaction); this
 * copy spares a lookup per file and look. Pure.
 */
#ifndef SL_FILES_LEDGER_H
#define SL_FILES_LEDGER_H

#include <stddef.h>

struct arena;

enum files_verdict {
	FILES_NEW,         /* no file of its name landed */
	FILES_NEW_VERSION, /* its name landed, with other content */
	FILES_LANDED,      /* this name with this content landed */
};

struct files_ledger {
	struct arena *a; /* owned by the caller */
	struct files_ledger_row {
		const char *path, *sha256;
	} *rows;
	size_t n, cap;
};

/* Adds that path landed with that content. */
void files_ledger_add(struct files_ledger *l, const char *path, const char *sha256);

/* What a file called path with content sha256 is. */
enum files_verdict files_ledger_judge(const struct files_ledger *l, const char *path,
				      const char *sha256);

#endif
