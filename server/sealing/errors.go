package sealing

import (
	"errors"
	"fmt"
)

// ErrWrongKey is returned by Open when authentication fails: the data was
// sealed with a different key or different additional data, or was altered.
var ErrWrongKey = errors.New("sealed data was not sealed with this key or was altered")

// ErrNoKey is returned by LoadKeyring when neither KUBEOPERA_ENCRYPTION_KEY
// nor KUBEOPERA_ENCRYPTION_KEY_FILE is set, so a caller may generate a key
// file at first start.
var ErrNoKey = errors.New("no encryption key: set " + EnvKey + " (32 bytes, base64) or " + EnvKeyFile)

// MissingKeyError is returned by Open when the keyring does not hold the key
// that sealed the data, typically because it was dropped after a rotation.
type MissingKeyError struct {
	// KeyID is the ID stored beside the sealed data.
	KeyID string
}

func (e *MissingKeyError) Error() string {
	return fmt.Sprintf("data was sealed with encryption key %q, which is not configured: add that key to %s",
		e.KeyID, EnvOldKeys)
}

// KeyLengthError reports a key of the wrong length. It holds only the
// length, never key material.
type KeyLengthError struct {
	// Got is the length in bytes, after decoding when Encoding is set.
	Got int
	// Encoding names the text encoding the key was decoded from ("base64",
	// "hex"), or is empty for raw bytes.
	Encoding string
}

func (e *KeyLengthError) Error() string {
	what := "key is"
	if e.Encoding != "" {
		what = "key decodes from " + e.Encoding + " to"
	}
	return fmt.Sprintf("%s %d bytes; it must be exactly %d bytes (generate a key with `openssl rand -base64 32`)",
		what, e.Got, KeySize)
}
