/*
 * The read endpoint, POST /api/sql: a query from a client, run on the
 * reader's own warehouse connection, never the writer's nor the runner's,
 * and answered as JSON, CSV or NDJSON. Read-only for real: the warehouse
 * refuses anything but one query and runs it in a READ ONLY transaction
 * (wh_query_readonly). Every input is bounded: the SQL's length, the rows
 * and bytes answered, the time the query runs, the calls waiting.
 */
#ifndef SL_SERVER_READ_H
#define SL_SERVER_READ_H

struct http_call;
struct server_reader;
struct sl_err;
struct wh;

/* The largest SQL text taken, the most calls waiting, the rows answered
 * unless max_rows asks for fewer, the most it may ask for, the bytes of
 * values answered, the time a query runs unless timeout_ms asks for
 * less (it may ask for up to SQL_TIMEOUT_MAX_MS), and the most rows
 * offset may skip before the first answered (a page further on). */
#define SQL_MAX_TEXT (256 * 1024)
#define SQL_MAX_WAITING 8
#define SQL_DEFAULT_ROWS 10000
#define SQL_MAX_ROWS 100000
#define SQL_MAX_BYTES (2 * 1024 * 1024)
#define SQL_TIMEOUT_MS 10000
#define SQL_TIMEOUT_MAX_MS 25000
#define SQL_MAX_OFFSET 1000000000

/* Starts the reader's thread; its connection is opened from w when the
 * first query comes, and again after one failed. */
int server_reader_start(struct wh *w, struct server_reader **out, struct sl_err *err);
/* Takes the call (the HTTP thread): refuses a bad request at once, else
 * queues it for the reader's thread, which answers it. */
void server_reader_answer(struct server_reader *r, struct http_call *c);
/* Answers what is queued without running it (503 once the HTTP server
 * has not already), joins the thread, closes its connection. */
void server_reader_stop(struct server_reader *r);

#endif
