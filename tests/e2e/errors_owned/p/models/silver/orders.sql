SELECT id, _sluice_seq FROM landing.orders
