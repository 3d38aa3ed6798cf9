-- People who sign in to KubeOpera. Every statement runs unchanged on SQLite
-- and PostgreSQL 15, as in the initial migration.
CREATE TABLE users (
	id            TEXT        NOT NULL PRIMARY KEY,
	email         TEXT        NOT NULL,
	username      VARCHAR(63) NOT NULL,
	password_hash TEXT        NOT NULL,
	role          TEXT        NOT NULL,
	super_admin   BOOLEAN     NOT NULL DEFAULT FALSE,
	created_at    TIMESTAMPTZ NOT NULL,
	CONSTRAINT users_role_check CHECK (role IN ('platform-admin', 'viewer')),
	CONSTRAINT users_super_admin_role_check CHECK (NOT super_admin OR role = 'platform-admin')
);
--bun:split
-- The unique index names are what the store maps to a ConflictError field.
-- The store lowercases emails, so this index is case-insensitive in effect.
CREATE UNIQUE INDEX users_email_key ON users (email);
--bun:split
CREATE UNIQUE INDEX users_username_key ON users (username);
--bun:split
-- At most one super-admin, decided by the database: of two concurrent
-- inserts the second fails, whatever either checked beforehand.
CREATE UNIQUE INDEX users_one_super_admin ON users (super_admin) WHERE super_admin;
