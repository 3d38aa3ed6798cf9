-- One row per mutating API request: who, what, on what, with what result.
-- Never any request body: only the method, the route pattern and the ID
-- in the path.
CREATE TABLE audit_events (
	id         TEXT        NOT NULL PRIMARY KEY,
	at         TIMESTAMPTZ NOT NULL,
	actor      TEXT        NOT NULL,
	actor_id   TEXT        NOT NULL,
	method     TEXT        NOT NULL,
	route      TEXT        NOT NULL,
	target     TEXT        NOT NULL,
	status     INTEGER     NOT NULL,
	request_id TEXT        NOT NULL
);
--bun:split
CREATE INDEX audit_events_at ON audit_events (at);
