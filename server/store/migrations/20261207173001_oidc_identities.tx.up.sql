-- Users who sign in through an OpenID Provider: the provider's issuer and
-- subject (the stable `sub` claim) name the user, whatever their username
-- or email becomes there. A separate table, so local users are untouched.
-- Runs unchanged on SQLite and PostgreSQL 15.
CREATE TABLE oidc_identities (
	issuer     TEXT        NOT NULL,
	subject    TEXT        NOT NULL,
	user_id    TEXT        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	created_at TIMESTAMPTZ NOT NULL,
	PRIMARY KEY (issuer, subject)
);
--bun:split
CREATE UNIQUE INDEX oidc_identities_user_id_key ON oidc_identities (user_id);
