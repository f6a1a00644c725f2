/*
 * This file implements the hash of a file's content (digest.h), with
 * OpenSSL's SHA-256. It must never hash a file other than the one the
 * listing judged: a link put in its place is not followed, and a file that
 * changed since is not hashed.
 */
#include "files/digest.h"

#include "core/err.h"
#include "core/hex.h"
#include "files/scan.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool as_listed(int fd, const struct files_entry *e)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == e->size &&
	       (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec == e->mtime_ns &&
	       st.st_dev == e->dev && st.st_ino == e->ino;
}

int files_digest(const struct files_entry *e, char hex[65], struct sl_err *err)
{
	unsigned char chunk[65536], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	int fd = open(e->open, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	EVP_MD_CTX *ctx;
	ssize_t got = 0;
	int rc = 0;

	if (fd < 0)
		return sl_err_set(err, SL_E_IO, "%s: cannot read it: %s", e->name, strerror(errno));
	if (!as_listed(fd, e)) {
		close(fd);
		return sl_err_set(err, SL_E_BUSY, "%s: changed since the folder was looked at",
				  e->name);
	}
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		rc = sl_err_set(err, SL_E_INTERNAL, "%s: SHA-256 is not available", e->name);
	while (!rc && (got = read(fd, chunk, sizeof(chunk))) > 0)
		if (!EVP_DigestUpdate(ctx, chunk, (size_t)got))
			rc = sl_err_set(err, SL_E_INTERNAL, "%s: SHA-256 failed", e->name);
	if (!rc && got < 0)
		rc = sl_err_set(err, SL_E_IO, "%s: cannot read it: %s", e->name, strerror(errno));
	if (!rc && !EVP_DigestFinal_ex(ctx, md, &mdlen))
		rc = sl_err_set(err, SL_E_INTERNAL, "%s: SHA-256 failed", e->name);
	if (!rc && !as_listed(fd, e))
		rc = sl_err_set(err, SL_E_BUSY, "%s: changed while it was read", e->name);
	EVP_MD_CTX_free(ctx);
	close(fd);
	if (!rc)
		hex_encode(md, mdlen, hex);
	return rc;
}
