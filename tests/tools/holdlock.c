/*
 * Test tool: opens a DuckDB warehouse file, says "locked" on stdout, and
 * keeps it open (holding DuckDB's file lock) until stdin closes or the
 * given number of seconds passes. Lets tests see how sluice meets a
 * warehouse that another process is using.
 *   holdlock FILE SECONDS
 */
#include "core/err.h"
#include "warehouse/wh.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	struct sl_err err = SL_ERR_INIT;
	struct wh *w;
	struct pollfd pfd = { .fd = 0, .events = POLLIN };

	if (argc != 3) {
		fprintf(stderr, "usage: holdlock FILE SECONDS\n");
		return 2;
	}
	if (wh_open_duckdb(argv[1], false, &w, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	printf("locked\n");
	fflush(stdout);
	poll(&pfd, 1, atoi(argv[2]) * 1000);
	wh_close(w);
	return 0;
}
