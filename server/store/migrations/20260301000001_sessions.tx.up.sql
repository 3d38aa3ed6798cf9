-- Dashboard sign-in: server-side sessions and the failed sign-in counters
-- that throttle guessing. Kept in the database so any server replica serves
-- a session and a restart signs no one out. Runs unchanged on SQLite and
-- PostgreSQL 15.
CREATE TABLE sessions (
	-- id_hash is the hex SHA-256 of the cookie value; the value itself is
	-- never stored.
	id_hash      TEXT        NOT NULL PRIMARY KEY,
	user_id      TEXT        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	csrf_token   TEXT        NOT NULL,
	created_at   TIMESTAMPTZ NOT NULL,
	last_seen_at TIMESTAMPTZ NOT NULL,
	expires_at   TIMESTAMPTZ NOT NULL
);
--bun:split
CREATE INDEX sessions_user_id_idx ON sessions (user_id);
--bun:split
CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);
--bun:split
-- One row per throttled subject ("account:<username>" or "address:<ip>"):
-- failures counted since window_start.
CREATE TABLE sign_in_failures (
	subject      TEXT        NOT NULL PRIMARY KEY,
	failures     INTEGER     NOT NULL,
	window_start TIMESTAMPTZ NOT NULL
);
