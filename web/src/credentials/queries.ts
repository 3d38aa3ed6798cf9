export const credentialKeys = { all: ['credentials'] as const };
