// Package sealing encrypts cloud credentials at rest.
//
// Data is sealed with AES-256-GCM under the primary key of a Keyring; each
// sealed value carries its own random nonce and is bound to caller-supplied
// additional data (the credential row ID), so a ciphertext copied to another
// row fails to open. Older keys stay in the keyring after a rotation so rows
// sealed before it still open; rows record the key ID that sealed them.
package sealing
