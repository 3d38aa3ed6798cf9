package sealing

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// KeySize is the length in bytes of every key in a Keyring (AES-256).
const KeySize = 32

// nonceSize is the GCM standard nonce length; it is prepended to each
// ciphertext.
const nonceSize = 12

// Keyring holds the primary key, which seals new data, and older keys kept
// only to open data sealed before a rotation. It is safe for concurrent use.
type Keyring struct {
	primaryID string
	aeads     map[string]cipher.AEAD
}

// KeyID returns the ID of a raw key: the first 16 hex characters of its
// SHA-256. The ID is derived rather than configured so the same key always
// has the same ID, and it reveals nothing usable about the key.
func KeyID(key []byte) string {
	sum := sha256.Sum256(key)
	return hex.EncodeToString(sum[:])[:16]
}

// NewKeyring builds a keyring from a primary key and any number of older
// keys. Each key must be exactly KeySize bytes. An old key equal to the
// primary, or repeated, is accepted once.
func NewKeyring(primary []byte, old ...[]byte) (*Keyring, error) {
	k := &Keyring{aeads: make(map[string]cipher.AEAD, 1+len(old))}
	id, err := k.add(primary)
	if err != nil {
		return nil, fmt.Errorf("primary encryption key: %w", err)
	}
	k.primaryID = id
	for i, key := range old {
		if _, err := k.add(key); err != nil {
			return nil, fmt.Errorf("old encryption key %d of %d: %w", i+1, len(old), err)
		}
	}
	return k, nil
}

func (k *Keyring) add(key []byte) (string, error) {
	if len(key) != KeySize {
		return "", &KeyLengthError{Got: len(key)}
	}
	id := KeyID(key)
	if _, ok := k.aeads[id]; ok {
		return id, nil
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return "", fmt.Errorf("creating AES cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return "", fmt.Errorf("creating GCM: %w", err)
	}
	k.aeads[id] = aead
	return id, nil
}

// PrimaryID returns the ID of the key that Seal uses.
func (k *Keyring) PrimaryID() string { return k.primaryID }

// Has reports whether the keyring holds the key with the given ID.
func (k *Keyring) Has(keyID string) bool {
	_, ok := k.aeads[keyID]
	return ok
}

// Seal encrypts plaintext under the primary key, binding it to aad, and
// returns the nonce followed by the ciphertext, and the primary key's ID to
// store beside it. The same aad must be passed to Open.
func (k *Keyring) Seal(plaintext, aad []byte) (ciphertext []byte, keyID string, err error) {
	nonce := make([]byte, nonceSize, nonceSize+len(plaintext)+16)
	if _, err := rand.Read(nonce); err != nil {
		return nil, "", fmt.Errorf("reading a random nonce: %w", err)
	}
	aead := k.aeads[k.primaryID]
	return aead.Seal(nonce, nonce, plaintext, aad), k.primaryID, nil
}

// Open decrypts data produced by Seal with the key named keyID and the same
// aad. It returns a *MissingKeyError when the keyring lacks that key, and an
// error wrapping ErrWrongKey when the data was sealed with another key, for
// other aad, or was altered.
func (k *Keyring) Open(ciphertext []byte, keyID string, aad []byte) ([]byte, error) {
	aead, ok := k.aeads[keyID]
	if !ok {
		return nil, &MissingKeyError{KeyID: keyID}
	}
	if len(ciphertext) < nonceSize+aead.Overhead() {
		return nil, fmt.Errorf("sealed data is %d bytes, shorter than a nonce and tag (%d): %w",
			len(ciphertext), nonceSize+aead.Overhead(), ErrWrongKey)
	}
	plaintext, err := aead.Open(nil, ciphertext[:nonceSize], ciphertext[nonceSize:], aad)
	if err != nil {
		// The GCM error carries nothing more than "authentication failed".
		return nil, ErrWrongKey
	}
	return plaintext, nil
}
