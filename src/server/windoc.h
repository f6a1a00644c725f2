/*
 * GET /api/windows and GET /api/windows/NAME: which models and sources
 * have windows, and one model's windows (or a source's coverage) as runs
 * of one state each (winruns.h), for the Windows page to draw. The list
 * is answered from the project on the HTTP thread; a model's windows are
 * read on a thread of their own, on a connection of their own, one call
 * at a time. Every input is bounded: the name, the time range, the runs
 * answered, the calls waiting.
 */
#ifndef SL_SERVER_WINDOC_H
#define SL_SERVER_WINDOC_H

struct http_call;
struct project;
struct sl_err;
struct win_doc;
struct wh;

/* The most runs answered unless max_runs asks for fewer, the most it may
 * ask for, the calls waiting before a 503, and the longest name taken. */
#define WIN_RUNS_DEFAULT 100000
#define WIN_RUNS_MAX 200000
#define WIN_DOC_MAX_WAITING 8
#define WIN_DOC_NAME_MAX 255

/* Starts the thread; its connection is opened from w at the first call,
 * and again after one failed. p must outlive win_doc_stop. */
int win_doc_start(struct wh *w, const struct project *p, struct win_doc **out,
		  struct sl_err *err);
/* Answers GET /api/windows on the calling thread: every temporal model
 * (name, grain, flexible, start, end) and every source with event_time
 * (name, lateness_ms). */
void win_doc_answer_list(struct win_doc *d, struct http_call *c);
/* Takes GET /api/windows/NAME on the HTTP thread: refuses a bad request
 * at once (404 for an unknown name, with the nearest; 400 for a bad
 * parameter or a name without windows), else queues it for the thread,
 * which answers. */
void win_doc_answer(struct win_doc *d, struct http_call *c, const char *name);
/* Answers what is queued without reading (503), joins the thread, closes
 * its connection. After the HTTP server stopped. */
void win_doc_stop(struct win_doc *d);

#endif
