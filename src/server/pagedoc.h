/*
 * The documents of the model page and the Runs and alerts page:
 * GET /api/models/NAME (exec/modeldoc.h: the project's part made on the
 * HTTP thread from memory, the warehouse's and the folder's part read on
 * the history thread) and GET /api/runs (the run log grouped by run, the
 * live runner's rows, the alerts sent: all read on the history thread).
 * Every input is bounded: the name, the counts asked for.
 */
#ifndef SL_SERVER_PAGEDOC_H
#define SL_SERVER_PAGEDOC_H

struct http_call;
struct project;
struct server_history;

/* The longest model name taken; the most runs, live rows and alerts one
 * answer holds (and the counts given when none is asked). */
#define PAGE_NAME_MAX 255
#define PAGE_RUNS_MAX 200
#define PAGE_RUNS_DEFAULT 30
#define PAGE_LIVE_MAX 1000
#define PAGE_LIVE_DEFAULT 100
#define PAGE_ALERTS_MAX 1000
#define PAGE_ALERTS_DEFAULT 100

/* GET /api/models/NAME, on the HTTP thread: 404 (with the nearest name)
 * for no model of that name, 400 for a bare name several schemas have or
 * a name over PAGE_NAME_MAX; else the project's part of the document,
 * handed with the call to the history thread, which adds the rest and
 * answers (the project may be freed meanwhile). */
void page_doc_model(struct server_history *h, struct http_call *c, const struct project *p,
		    const char *name);

/* GET /api/runs[?runs=N&before=RUN_ID&live=N&alerts=N], on the HTTP
 * thread: 400 for a count out of its range; else handed to the history
 * thread, which reads the log and the alerts of the folder root and
 * answers {"runs": [{"run_id", "run_type", "env", "status", "started_at",
 * "finished_at", "duration_ms", "rows", "models": [{"model", "status",
 * "rows", "started_at", "finished_at", "duration_ms", "message"}]}],
 * "before": the id to ask for older runs with, or null, "live": [rows
 * without a run id], "alerts": [the alerts sent, newest first]}. */
void page_doc_runs(struct server_history *h, struct http_call *c, const char *root);

#endif
