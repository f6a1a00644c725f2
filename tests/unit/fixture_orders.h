/*
 * For the unit tests of replays: a project of a webhook source of orders
 * with an event time, a row model that passes it through and an aggregate
 * over that, written into a struct fx's folder and loaded. Include after
 * fixture_project_wh.h.
 */
#ifndef SL_TESTS_FIXTURE_ORDERS_H
#define SL_TESTS_FIXTURE_ORDERS_H

/* yml_extra follows the source's settings (more of them, or other
 * sections). */
static inline void fixture_orders_project(struct fx *f, const char *yml_extra)
{
	fixture_put(f->root, "sluice.yml",
		    arena_sprintf(f->a,
				  "name: r\nsources:\n  orders:\n    kind: webhook\n"
				  "    columns: {order_id: BIGINT, amount: BIGINT, region: VARCHAR, "
				  "ts: TIMESTAMP}\n"
				  "    event_time: ts\n    boundary: timestamp\n%s",
				  yml_extra));
	fixture_put(f->root, "models/silver/orders.sql",
		    "@config materialized=incremental, live=true, incremental_strategy=append,\n"
		    "        incremental_filter=WHERE _sluice_seq > {watermark}\n"
		    "SELECT order_id, amount, region, ts, _sluice_seq FROM landing.orders\n");
	fixture_put(f->root, "models/gold/by_region.sql",
		    "@config materialized=incremental, live=true\n"
		    "SELECT region, count(*) AS orders, sum(amount) AS revenue FROM silver.orders "
		    "GROUP BY region\n");
	f->p = fixture_load_valid(f->a, f->root);
}

#endif
