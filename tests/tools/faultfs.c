/*
 * Test tool: a disk that fills up or fails, as an LD_PRELOAD shim. It
 * wraps the calls DuckDB writes files with (write, pwrite, writev, fsync,
 * fdatasync, ftruncate, fallocate and their 64-bit and vector twins) on
 * the files whose path matches FAULTFS_MATCH, and from a point on fails
 * them, the way a real disk does:
 *
 * - ENOSPC, a full disk: FAULTFS_AFTER bytes of new space are free. A
 *   write that needs more (it extends the file) is cut short at the last
 *   4 KB boundary that fits, and from then on every write that extends a
 *   file, and every allocation, fails; writing over what a file already
 *   holds, syncing and shrinking still work.
 * - EIO, a failing disk: after FAULTFS_AFTER bytes written, every write,
 *   sync, truncation and allocation fails whole, writing nothing; or with
 *   FAULTFS_CALLS=sync only the syncs fail, as when the disk fails while
 *   writing back what it had taken.
 *
 * A write is never torn inside what a file already holds: DuckDB rewrites
 * some blocks in place and counts on that (no disk tears a write for want
 * of space). FAULTFS_FOR_MS after the fault began, the disk works again.
 * Other files, and reads, are never touched.
 *
 * A slow disk instead, or as well: FAULTFS_SLOW_AFTER_MS after the
 * process started, every sync of a watched file takes FAULTFS_SLOW_MS
 * longer, then does what it would have (set FAULTFS_AFTER beyond what the
 * process writes for a disk that is only slow).
 *
 * It also sets DuckDB's checkpoint_threshold for every database the
 * process opens (FAULTFS_CHECKPOINT), so that checkpoints, where a failed
 * write does the most harm, come every few commits instead of every 16 MB
 * of log.
 *
 *   FAULTFS_MATCH       substring of the paths to fail, or with a final $ how
 *                       they end ("warehouse.duckdb$": not its WAL); unset:
 *                       no faults
 *   FAULTFS_AFTER       bytes before the fault (0)
 *   FAULTFS_ERRNO       ENOSPC (default) or EIO
 *   FAULTFS_CALLS       all (default), or sync (EIO only)
 *   FAULTFS_FOR_MS      how long the fault lasts (unset: until the process ends)
 *   FAULTFS_LOG         file that gets a line per failed or cut call
 *                       ("faultfs: pwrite /p/warehouse.duckdb at 4096: EIO"),
 *                       and one when a call on a matching file succeeds
 *                       after the fault ended ("faultfs: fsync
 *                       /p/warehouse.duckdb.wal after the fault"): the
 *                       process went on after its disk failed
 *   FAULTFS_CHECKPOINT  DuckDB's checkpoint_threshold ("256KB")
 *   FAULTFS_SLOW_MS     how much longer each sync takes (0: no slower)
 *   FAULTFS_SLOW_AFTER_MS  from when on, after the process started (0)
 *
 * Must never allocate or print in a wrapped call on a file it does not
 * watch: the process it is loaded into calls write() for everything.
 */
#include <dlfcn.h>
#include <duckdb.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define FD_MAX 4096
#define FS_BLOCK 4096
#define IOV_MAX_CLIP 64

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static const char *match, *log_path;
static long long budget;      /* bytes before the fault */
static long long for_ms = -1; /* < 0: the fault never ends */
static bool full_disk = true; /* ENOSPC, else EIO */
static bool syncs_only;
static bool faulting, recovered, told;
static int64_t fault_start_ms;
static long long slow_ms;      /* how much longer a sync takes */
static int64_t slow_from_ms;  /* from when on (monotonic ms) */
static char *paths[FD_MAX]; /* the watched files open, by descriptor */

static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_close)(int);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_ftruncate)(int, off_t);
static int (*real_ftruncate64)(int, off_t);
static int (*real_fallocate)(int, int, off_t, off_t);
static int (*real_fallocate64)(int, int, off_t, off_t);
static int (*real_posix_fallocate)(int, off_t, off_t);

static int64_t now_ms(void);

static void init(void)
{
	const char *e;

	real_open = dlsym(RTLD_NEXT, "open");
	real_open64 = dlsym(RTLD_NEXT, "open64");
	real_openat = dlsym(RTLD_NEXT, "openat");
	real_close = dlsym(RTLD_NEXT, "close");
	real_write = dlsym(RTLD_NEXT, "write");
	real_pwrite = dlsym(RTLD_NEXT, "pwrite");
	real_pwrite64 = dlsym(RTLD_NEXT, "pwrite64");
	real_writev = dlsym(RTLD_NEXT, "writev");
	real_pwritev = dlsym(RTLD_NEXT, "pwritev");
	real_fsync = dlsym(RTLD_NEXT, "fsync");
	real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
	real_ftruncate = dlsym(RTLD_NEXT, "ftruncate");
	real_ftruncate64 = dlsym(RTLD_NEXT, "ftruncate64");
	real_fallocate = dlsym(RTLD_NEXT, "fallocate");
	real_fallocate64 = dlsym(RTLD_NEXT, "fallocate64");
	real_posix_fallocate = dlsym(RTLD_NEXT, "posix_fallocate");
	match = getenv("FAULTFS_MATCH");
	if (match && !*match)
		match = NULL;
	log_path = getenv("FAULTFS_LOG");
	budget = (e = getenv("FAULTFS_AFTER")) ? atoll(e) : 0;
	if ((e = getenv("FAULTFS_FOR_MS")) && *e)
		for_ms = atoll(e);
	full_disk = !((e = getenv("FAULTFS_ERRNO")) && strcmp(e, "EIO") == 0);
	syncs_only = !full_disk && (e = getenv("FAULTFS_CALLS")) && strcmp(e, "sync") == 0;
	slow_ms = (e = getenv("FAULTFS_SLOW_MS")) ? atoll(e) : 0;
	slow_from_ms = now_ms() + ((e = getenv("FAULTFS_SLOW_AFTER_MS")) ? atoll(e) : 0);
}

static void setup(void)
{
	pthread_once(&once, init);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A line in the log; under mu, on watched files only. */
static void note(const char *fmt, ...)
{
	char line[4400];
	va_list ap;
	int fd, n;

	if (!log_path)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	fd = real_open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (real_write(fd, line, (size_t)n) < 0)
		n = 0;
	real_close(fd);
}

static bool matches(const char *path)
{
	size_t n = strlen(match), len = strlen(path);

	if (match[n - 1] != '$')
		return strstr(path, match) != NULL;
	return len >= n - 1 && memcmp(path + len - (n - 1), match, n - 1) == 0;
}

static bool watched(int fd)
{
	return match && fd >= 0 && fd < FD_MAX && paths[fd];
}

static void track(int fd, const char *path)
{
	if (!match || fd < 0 || fd >= FD_MAX || !path || !matches(path))
		return;
	pthread_mutex_lock(&mu);
	free(paths[fd]);
	paths[fd] = strdup(path);
	pthread_mutex_unlock(&mu);
}

/* Whether the disk is failing now; a call that goes ahead once it works
 * again is noted (once). Under mu. */
static bool failing(const char *call, const char *path)
{
	if (faulting && for_ms >= 0 && now_ms() - fault_start_ms >= for_ms) {
		faulting = false;
		recovered = true;
	}
	if (recovered && !told) {
		note("faultfs: %s %s after the fault", call, path);
		told = true;
	}
	return faulting;
}

static void begin_fault(void)
{
	faulting = true;
	fault_start_ms = now_ms();
}

/* at: the offset of a write, -1 for the other calls */
static int refuse(const char *call, const char *path, long long at)
{
	const char *e = full_disk ? "ENOSPC" : "EIO";

	if (at >= 0)
		note("faultfs: %s %s at %lld: %s", call, path, at, e);
	else
		note("faultfs: %s %s: %s", call, path, e);
	errno = full_disk ? ENOSPC : EIO;
	return -1;
}

/* How many of len bytes a write at off (-1: the descriptor's position) may
 * write: len on a file not watched, -1 with errno set for none. */
static ssize_t allowance(int fd, long long off, size_t len, const char *call)
{
	struct stat st;
	long long end, grow, cut;
	ssize_t n = (ssize_t)len;

	setup();
	if (!watched(fd))
		return n;
	if (off < 0)
		off = fcntl(fd, F_GETFL) & O_APPEND ? -1 : (long long)lseek(fd, 0, SEEK_CUR);
	if (fstat(fd, &st) != 0)
		return n;
	if (off < 0)
		off = st.st_size;
	end = off + (long long)len;
	grow = end > st.st_size ? end - (off > st.st_size ? off : st.st_size) : 0;
	pthread_mutex_lock(&mu);
	if (!paths[fd]) {
		pthread_mutex_unlock(&mu);
		return n;
	}
	if (failing(call, paths[fd])) {
		if (!syncs_only && (!full_disk || grow))
			n = refuse(call, paths[fd], off);
	} else if (!recovered && (full_disk ? grow : (long long)len) > budget) {
		begin_fault();
		/* what fits of a write that fills the disk: whole blocks of it */
		cut = full_disk ? (end - grow + budget) / FS_BLOCK * FS_BLOCK : off;
		budget = 0;
		if (syncs_only)
			n = (ssize_t)len;
		else if (cut > off)
			n = (ssize_t)(cut - off);
		else
			n = refuse(call, paths[fd], off);
		if (n > 0 && n < (ssize_t)len)
			note("faultfs: %s %s at %lld: %zd of %zu bytes, the disk is full", call,
			     paths[fd], off, n, len);
	} else if (!recovered) {
		budget -= full_disk ? grow : (long long)len;
	}
	pthread_mutex_unlock(&mu);
	return n;
}

/* For the calls that write no bytes of their own: 0 to go ahead, -1 with
 * errno set to fail. A full disk still syncs and shrinks files. */
static int gate(int fd, const char *call, bool needs_space)
{
	bool sync = strcmp(call, "fsync") == 0 || strcmp(call, "fdatasync") == 0;
	int rc = 0;

	setup();
	if (!watched(fd))
		return 0;
	pthread_mutex_lock(&mu);
	if (paths[fd] && failing(call, paths[fd]) &&
	    (full_disk ? needs_space : !syncs_only || sync))
		rc = refuse(call, paths[fd], -1);
	pthread_mutex_unlock(&mu);
	return rc;
}

static mode_t mode_arg(int flags, va_list ap)
{
	return flags & (O_CREAT | O_TMPFILE) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;
	int fd;

	setup();
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	fd = real_open(path, flags, mode);
	track(fd, path);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;
	int fd;

	setup();
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	fd = real_open64(path, flags, mode);
	track(fd, path);
	return fd;
}

int openat(int dir, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;
	int fd;

	setup();
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	fd = real_openat(dir, path, flags, mode);
	track(fd, path);
	return fd;
}

int close(int fd)
{
	setup();
	if (watched(fd)) {
		pthread_mutex_lock(&mu);
		free(paths[fd]);
		paths[fd] = NULL;
		pthread_mutex_unlock(&mu);
	}
	return real_close(fd);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	ssize_t n = allowance(fd, -1, len, "write");

	return n < 0 ? -1 : real_write(fd, buf, (size_t)n);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n = allowance(fd, off, len, "pwrite");

	return n < 0 ? -1 : real_pwrite(fd, buf, (size_t)n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n = allowance(fd, off, len, "pwrite64");

	return n < 0 ? -1 : real_pwrite64(fd, buf, (size_t)n, off);
}

/* A vector write is cut short by leaving out what is beyond the
 * allowance. */
static int clip(const struct iovec *iov, int cnt, ssize_t n, struct iovec *out)
{
	int k = 0;

	for (int i = 0; i < cnt && n > 0; i++) {
		out[k] = iov[i];
		if ((ssize_t)out[k].iov_len > n)
			out[k].iov_len = (size_t)n;
		n -= (ssize_t)out[k].iov_len;
		k++;
	}
	return k;
}

static size_t iov_len(const struct iovec *iov, int cnt)
{
	size_t len = 0;

	for (int i = 0; i < cnt; i++)
		len += iov[i].iov_len;
	return len;
}

/* DuckDB writes no vectors; longer ones than the shim can cut short go
 * through untouched. */
ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	struct iovec part[IOV_MAX_CLIP];
	ssize_t n;

	setup();
	if (!watched(fd) || cnt > IOV_MAX_CLIP)
		return real_writev(fd, iov, cnt);
	n = allowance(fd, -1, iov_len(iov, cnt), "writev");
	return n < 0 ? -1 : real_writev(fd, part, clip(iov, cnt, n, part));
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	struct iovec part[IOV_MAX_CLIP];
	ssize_t n;

	setup();
	if (!watched(fd) || cnt > IOV_MAX_CLIP)
		return real_pwritev(fd, iov, cnt, off);
	n = allowance(fd, off, iov_len(iov, cnt), "pwritev");
	return n < 0 ? -1 : real_pwritev(fd, part, clip(iov, cnt, n, part), off);
}

/* A slow disk's sync: it waits, then goes on (noted in the log). */
static void slow_sync(int fd, const char *call)
{
	struct timespec ts = { .tv_sec = slow_ms / 1000, .tv_nsec = slow_ms % 1000 * 1000000L };

	setup();
	if (slow_ms <= 0 || !watched(fd) || now_ms() < slow_from_ms)
		return;
	pthread_mutex_lock(&mu);
	if (paths[fd])
		note("faultfs: %s %s slow by %lld ms", call, paths[fd], slow_ms);
	pthread_mutex_unlock(&mu);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int fsync(int fd)
{
	slow_sync(fd, "fsync");
	return gate(fd, "fsync", false) ? -1 : real_fsync(fd);
}

int fdatasync(int fd)
{
	slow_sync(fd, "fdatasync");
	return gate(fd, "fdatasync", false) ? -1 : real_fdatasync(fd);
}

/* Growing a file leaves a hole, which takes no space. */
int ftruncate(int fd, off_t len)
{
	return gate(fd, "ftruncate", false) ? -1 : real_ftruncate(fd, len);
}

int ftruncate64(int fd, off_t len)
{
	return gate(fd, "ftruncate64", false) ? -1 : real_ftruncate64(fd, len);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
	return gate(fd, "fallocate", true) ? -1 : real_fallocate(fd, mode, off, len);
}

int fallocate64(int fd, int mode, off_t off, off_t len)
{
	return gate(fd, "fallocate64", true) ? -1 : real_fallocate64(fd, mode, off, len);
}

/* posix_fallocate reports its error as its result, not in errno. */
int posix_fallocate(int fd, off_t off, off_t len)
{
	return gate(fd, "posix_fallocate", true) ? errno : real_posix_fallocate(fd, off, len);
}

/* DuckDB's functions are looked up when first needed, so that the shim
 * loads into any process. */
duckdb_state duckdb_open_ext(const char *path, duckdb_database *out, duckdb_config config,
			     char **error)
{
	duckdb_state (*real)(const char *, duckdb_database *, duckdb_config, char **) =
		(duckdb_state(*)(const char *, duckdb_database *, duckdb_config, char **))dlsym(
			RTLD_NEXT, "duckdb_open_ext");
	duckdb_state (*create)(duckdb_config *) =
		(duckdb_state(*)(duckdb_config *))dlsym(RTLD_DEFAULT, "duckdb_create_config");
	duckdb_state (*set)(duckdb_config, const char *, const char *) =
		(duckdb_state(*)(duckdb_config, const char *, const char *))dlsym(
			RTLD_DEFAULT, "duckdb_set_config");
	void (*destroy)(duckdb_config *) =
		(void (*)(duckdb_config *))dlsym(RTLD_DEFAULT, "duckdb_destroy_config");
	const char *threshold = getenv("FAULTFS_CHECKPOINT");
	duckdb_config own = NULL;
	duckdb_state st;

	if (threshold && *threshold && !config && create(&own) == DuckDBSuccess)
		config = own;
	if (threshold && *threshold && config)
		set(config, "checkpoint_threshold", threshold);
	st = real(path, out, config, error);
	if (own)
		destroy(&own);
	return st;
}
