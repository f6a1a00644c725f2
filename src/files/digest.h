/*
 * The SHA-256 of a file's content, the name of its version in the files
 * ledger.
 */
#ifndef SL_FILES_DIGEST_H
#define SL_FILES_DIGEST_H

struct files_entry;
struct sl_err;

/* The hash of e's file (opened at e->open, links not followed) into hex, 64
 * lowercase digits. A file that is not as the listing saw it, before or
 * after it was read (its size, change time or identity moved: it is being
 * written), is SL_E_BUSY; one that cannot be read SL_E_IO. */
int files_digest(const struct files_entry *e, char hex[65], struct sl_err *err);

#endif
