-- Every statement here must run unchanged on SQLite and PostgreSQL 15.
-- TIMESTAMPTZ and BYTEA are native on PostgreSQL; SQLite stores the
-- timestamps as text and the ciphertext as a blob under these names.
CREATE TABLE clusters (
	id                 TEXT        NOT NULL PRIMARY KEY,
	name               VARCHAR(63) NOT NULL,
	provider           TEXT        NOT NULL DEFAULT '',
	region             TEXT        NOT NULL DEFAULT '',
	source             TEXT        NOT NULL,
	is_host            BOOLEAN     NOT NULL DEFAULT FALSE,
	status             TEXT        NOT NULL DEFAULT '',
	message            TEXT        NOT NULL DEFAULT '',
	kubernetes_version TEXT        NOT NULL DEFAULT '',
	node_count         INTEGER     NOT NULL DEFAULT 0,
	ready_node_count   INTEGER     NOT NULL DEFAULT 0,
	cluster_uid        TEXT,
	credential_id      TEXT,
	created_at         TIMESTAMPTZ NOT NULL,
	updated_at         TIMESTAMPTZ NOT NULL,
	CONSTRAINT clusters_source_check CHECK (source IN
		('self_registered', 'connected_existing', 'provisioned_vanilla', 'provisioned_eks'))
);
--bun:split
-- The unique index names are what the store maps to a ConflictError field.
CREATE UNIQUE INDEX clusters_name_key ON clusters (name);
--bun:split
-- At most one host cluster: a partial index, so any number of FALSE rows.
CREATE UNIQUE INDEX clusters_one_host ON clusters (is_host) WHERE is_host;
--bun:split
-- Both databases treat NULLs as distinct, so many clusters may lack a uid.
CREATE UNIQUE INDEX clusters_cluster_uid_key ON clusters (cluster_uid);
--bun:split
CREATE INDEX clusters_credential_id_idx ON clusters (credential_id);
--bun:split
CREATE TABLE cloud_credentials (
	id         TEXT        NOT NULL PRIMARY KEY,
	label      TEXT        NOT NULL,
	kind       TEXT        NOT NULL,
	ciphertext BYTEA       NOT NULL,
	key_id     TEXT        NOT NULL,
	last4      TEXT        NOT NULL DEFAULT '',
	created_by TEXT        NOT NULL DEFAULT '',
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL,
	CONSTRAINT cloud_credentials_kind_check CHECK (kind IN ('access_key', 'assume_role'))
);
--bun:split
CREATE UNIQUE INDEX cloud_credentials_label_key ON cloud_credentials (label);
--bun:split
CREATE TABLE api_tokens (
	id           TEXT        NOT NULL PRIMARY KEY,
	name         TEXT        NOT NULL,
	role         TEXT        NOT NULL,
	hash         TEXT        NOT NULL,
	created_at   TIMESTAMPTZ NOT NULL,
	last_used_at TIMESTAMPTZ
);
--bun:split
CREATE UNIQUE INDEX api_tokens_hash_key ON api_tokens (hash);
