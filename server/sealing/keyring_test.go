package sealing

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// testKey returns a deterministic 32-byte key filled with b.
func testKey(b byte) []byte { return bytes.Repeat([]byte{b}, KeySize) }

func mustKeyring(t *testing.T, primary []byte, old ...[]byte) *Keyring {
	t.Helper()
	k, err := NewKeyring(primary, old...)
	if err != nil {
		t.Fatalf("NewKeyring: %v", err)
	}
	return k
}

func TestSealOpenRoundTrip(t *testing.T) {
	k := mustKeyring(t, testKey(1))
	for _, plaintext := range [][]byte{nil, []byte("x"), []byte(`{"access_key":"AKIA...","secret":"s3cr3t"}`)} {
		sealed, id, err := k.Seal(plaintext, []byte("row-42"))
		if err != nil {
			t.Fatalf("Seal: %v", err)
		}
		if id != k.PrimaryID() {
			t.Errorf("Seal key ID = %q, want primary %q", id, k.PrimaryID())
		}
		// Random ciphertext holds any one given byte about one time in
		// nine: only a plaintext of some length can show a leak.
		if len(plaintext) >= 8 && bytes.Contains(sealed, plaintext) {
			t.Errorf("sealed data contains the plaintext")
		}
		got, err := k.Open(sealed, id, []byte("row-42"))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if !bytes.Equal(got, plaintext) {
			t.Errorf("Open = %q, want %q", got, plaintext)
		}
	}
}

func TestSealUsesAFreshNonceEachTime(t *testing.T) {
	k := mustKeyring(t, testKey(1))
	a, _, err := k.Seal([]byte("same"), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := k.Seal([]byte("same"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, b) {
		t.Fatal("sealing the same plaintext twice gave identical output")
	}
	if bytes.Equal(a[:nonceSize], b[:nonceSize]) {
		t.Error("two seals share a nonce")
	}
}

func TestOpenRejects(t *testing.T) {
	k := mustKeyring(t, testKey(1))
	other := mustKeyring(t, testKey(2), testKey(1))
	sealed, id, err := k.Seal([]byte("secret"), []byte("row-1"))
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		c := bytes.Clone(sealed)
		c[i] ^= 0x01
		return c
	}
	tests := []struct {
		name string
		data []byte
		aad  string
	}{
		{"data moved to another row (wrong aad)", sealed, "row-2"},
		{"tampered nonce byte", flip(0), "row-1"},
		{"tampered ciphertext byte", flip(nonceSize), "row-1"},
		{"tampered tag byte", flip(len(sealed) - 1), "row-1"},
		{"truncated to less than nonce and tag", sealed[:nonceSize+3], "row-1"},
		{"empty", nil, "row-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := k.Open(tt.data, id, []byte(tt.aad))
			if !errors.Is(err, ErrWrongKey) {
				t.Fatalf("Open error = %v, want ErrWrongKey", err)
			}
			if got != nil {
				t.Errorf("Open returned plaintext %q alongside the error", got)
			}
			if !strings.Contains(err.Error(), "not sealed with this key or was altered") {
				t.Errorf("error %q does not explain the failure", err)
			}
		})
	}
	t.Run("same ID claimed but another key under it", func(t *testing.T) {
		// Seal under key 2, then claim it was key 1's: authentication must fail.
		s2, _, err := other.Seal([]byte("secret"), []byte("row-1"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.Open(s2, id, []byte("row-1")); !errors.Is(err, ErrWrongKey) {
			t.Errorf("Open error = %v, want ErrWrongKey", err)
		}
	})
}

func TestRotation(t *testing.T) {
	keyA, keyB := testKey(0xA), testKey(0xB)
	before := mustKeyring(t, keyA)
	sealed, idA, err := before.Seal([]byte("old secret"), []byte("row-7"))
	if err != nil {
		t.Fatal(err)
	}

	after := mustKeyring(t, keyB, keyA)
	if after.PrimaryID() != KeyID(keyB) {
		t.Fatalf("PrimaryID = %q, want B's %q", after.PrimaryID(), KeyID(keyB))
	}
	if !after.Has(idA) || !after.Has(KeyID(keyB)) {
		t.Fatalf("rotated keyring lacks a key: Has(A)=%v Has(B)=%v", after.Has(idA), after.Has(KeyID(keyB)))
	}
	got, err := after.Open(sealed, idA, []byte("row-7"))
	if err != nil {
		t.Fatalf("opening data sealed with the old key: %v", err)
	}
	if string(got) != "old secret" {
		t.Errorf("Open = %q, want %q", got, "old secret")
	}
	resealed, idNew, err := after.Seal(got, []byte("row-7"))
	if err != nil {
		t.Fatal(err)
	}
	if idNew != KeyID(keyB) || idNew == idA {
		t.Errorf("new seal key ID = %q, want B's %q", idNew, KeyID(keyB))
	}
	if _, err := before.Open(resealed, idNew, []byte("row-7")); err == nil {
		t.Error("keyring without B opened data sealed with B")
	}
}

func TestOpenWithMissingKey(t *testing.T) {
	sealedBy := mustKeyring(t, testKey(3))
	sealed, id, err := sealedBy.Seal([]byte("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	k := mustKeyring(t, testKey(4))
	if k.Has(id) {
		t.Fatalf("Has(%q) = true for a key never added", id)
	}
	_, err = k.Open(sealed, id, nil)
	var missing *MissingKeyError
	if !errors.As(err, &missing) {
		t.Fatalf("Open error = %v (%T), want *MissingKeyError", err, err)
	}
	if missing.KeyID != id {
		t.Errorf("MissingKeyError.KeyID = %q, want %q", missing.KeyID, id)
	}
	if !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), EnvOldKeys) {
		t.Errorf("error %q should name the key ID and %s", err, EnvOldKeys)
	}
}

func TestKeyIDIsDerivedAndStable(t *testing.T) {
	// SHA-256 of 32 zero bytes begins 66687aadf862bd77.
	if got := KeyID(make([]byte, KeySize)); got != "66687aadf862bd77" {
		t.Errorf("KeyID(zeros) = %q, want 66687aadf862bd77", got)
	}
	if KeyID(testKey(1)) != mustKeyring(t, testKey(1)).PrimaryID() {
		t.Error("PrimaryID differs from KeyID of the same key")
	}
	if KeyID(testKey(1)) == KeyID(testKey(2)) {
		t.Error("different keys share an ID")
	}
}

func TestNewKeyringRejectsWrongLengths(t *testing.T) {
	tests := []struct {
		name    string
		primary []byte
		old     [][]byte
		want    string
	}{
		{"empty primary", nil, nil, "primary encryption key: key is 0 bytes; it must be exactly 32 bytes"},
		{"short primary", testKey(1)[:16], nil, "key is 16 bytes; it must be exactly 32 bytes"},
		{"long primary", append(testKey(1), 0), nil, "key is 33 bytes"},
		{"short old key", testKey(1), [][]byte{testKey(2), testKey(3)[:31]}, "old encryption key 2 of 2: key is 31 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := NewKeyring(tt.primary, tt.old...)
			if err == nil {
				t.Fatalf("NewKeyring succeeded (%v), want an error", k)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			var le *KeyLengthError
			if !errors.As(err, &le) {
				t.Errorf("error %v does not wrap *KeyLengthError", err)
			}
		})
	}
}

func TestNewKeyringAcceptsPrimaryRepeatedAsOld(t *testing.T) {
	k := mustKeyring(t, testKey(1), testKey(1), testKey(2), testKey(2))
	if len(k.aeads) != 2 {
		t.Errorf("keyring holds %d keys, want 2", len(k.aeads))
	}
	if k.PrimaryID() != KeyID(testKey(1)) {
		t.Errorf("PrimaryID changed by a repeated old key")
	}
}

func TestKeyringSurvivesCallerClearingKey(t *testing.T) {
	// The caller may zero its key buffer after building the keyring.
	key := testKey(5)
	k := mustKeyring(t, key)
	sealed, id, err := k.Seal([]byte("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	clear(key)
	if _, err := k.Open(sealed, id, nil); err != nil {
		t.Errorf("Open after the caller cleared its key buffer: %v", err)
	}
}
