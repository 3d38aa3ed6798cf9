-- Requests nobody signed are not worth a row each (anyone can send
-- millions): they are counted per hour, method and status instead, so the
-- audit log still shows that they came without growing with them. Runs
-- unchanged on SQLite and PostgreSQL 15.
CREATE TABLE audit_counts (
	hour    TIMESTAMPTZ NOT NULL,
	method  TEXT        NOT NULL,
	status  INTEGER     NOT NULL,
	count   BIGINT      NOT NULL,
	PRIMARY KEY (hour, method, status)
);
