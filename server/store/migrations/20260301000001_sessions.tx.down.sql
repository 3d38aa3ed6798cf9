DROP TABLE sign_in_failures;
--bun:split
DROP TABLE sessions;
