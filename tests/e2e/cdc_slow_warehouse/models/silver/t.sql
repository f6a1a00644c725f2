SELECT op, payload FROM landing.t
