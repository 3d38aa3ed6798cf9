-- The one-time setup secret lives in the database, sealed with the
-- encryption key, so every server replica on one database checks the same
-- secret and only the first to start makes it. The CHECK keeps it one row:
-- replicas starting at once insert with ON CONFLICT DO NOTHING and all read
-- back the winner's. Runs unchanged on SQLite and PostgreSQL 15.
CREATE TABLE setup_secret (
	id         INTEGER     NOT NULL PRIMARY KEY,
	ciphertext BYTEA       NOT NULL,
	key_id     TEXT        NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	CONSTRAINT setup_secret_one_row CHECK (id = 1)
);
