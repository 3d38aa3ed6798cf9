DROP TABLE setup_secret;
