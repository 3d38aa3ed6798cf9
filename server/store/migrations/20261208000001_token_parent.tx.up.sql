-- A token issued from another credential (a cluster kubeconfig's token,
-- got with a login token or a dashboard session) records it: "token:<id>"
-- or "session:<id hash>". Revoking that token, or ending that session,
-- revokes every token issued from it, so a logout ends the kubeconfigs
-- got through it rather than leaving them working until they expire.
-- Runs unchanged on SQLite and PostgreSQL 15.
ALTER TABLE api_tokens ADD COLUMN parent TEXT;
--bun:split
CREATE INDEX api_tokens_parent_idx ON api_tokens (parent);
