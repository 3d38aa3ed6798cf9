DROP TABLE api_tokens;
--bun:split
DROP TABLE cloud_credentials;
--bun:split
DROP TABLE clusters;
