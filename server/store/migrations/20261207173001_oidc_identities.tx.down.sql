DROP TABLE oidc_identities;
