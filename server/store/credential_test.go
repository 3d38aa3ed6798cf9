package store

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCredentialRoundTrip(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := useFakeClock(s)
		in := Credential{
			Label: "prod account", Kind: "assume_role",
			// Bytes that are not valid text, to prove the column is binary.
			Ciphertext: []byte{0x00, 0xff, 0x27, 0x5c, 0x80, 'x'},
			KeyID:      "k2", Last4: "AB12", CreatedBy: "admin",
		}
		if err := s.CreateCredential(ctx, &in); err != nil {
			t.Fatal(err)
		}
		if in.ID == "" || in.CreatedAt != clock.Now() || in.UpdatedAt != clock.Now() {
			t.Errorf("CreateCredential set ID %q, CreatedAt %v, UpdatedAt %v", in.ID, in.CreatedAt, in.UpdatedAt)
		}
		got, err := s.GetCredential(ctx, in.ID)
		if err != nil {
			t.Fatal(err)
		}
		got.CreatedAt, got.UpdatedAt = utc(got.CreatedAt), utc(got.UpdatedAt)
		if !reflect.DeepEqual(*got, in) {
			t.Errorf("GetCredential =\n %+v\nwant\n %+v", *got, in)
		}
		if err := s.DeleteCredential(ctx, in.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetCredential(ctx, in.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetCredential after delete = %v, want ErrNotFound", err)
		}
	})
}

func TestCredentialLabelConflict(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for i, keyID := range []string{"k1", "k2"} {
			err := s.CreateCredential(ctx, &Credential{Label: "dev", Kind: "access_key", Ciphertext: []byte("c"), KeyID: keyID})
			if i == 0 && err != nil {
				t.Fatal(err)
			}
			if i == 1 {
				assertConflict(t, err, "label", `a credential labelled "dev" already exists`)
			}
		}
	})
}

func TestListCredentialsAndKeyIDs(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		ids, err := s.CredentialKeyIDs(ctx)
		if err != nil || ids == nil || len(ids) != 0 {
			t.Errorf("CredentialKeyIDs with no credentials = %#v, %v; want an empty list", ids, err)
		}
		for _, c := range []struct{ label, keyID string }{{"zed", "k2"}, {"alpha", "k1"}, {"mid", "k2"}} {
			cred := &Credential{Label: c.label, Kind: "access_key", Ciphertext: []byte("c"), KeyID: c.keyID}
			if err := s.CreateCredential(ctx, cred); err != nil {
				t.Fatal(err)
			}
		}
		list, err := s.ListCredentials(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, c := range list {
			labels = append(labels, c.Label)
		}
		if !reflect.DeepEqual(labels, []string{"alpha", "mid", "zed"}) {
			t.Errorf("ListCredentials labels = %v, want [alpha mid zed]", labels)
		}
		ids, err = s.CredentialKeyIDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ids, []string{"k1", "k2"}) {
			t.Errorf("CredentialKeyIDs = %v, want [k1 k2], each once", ids)
		}
	})
}

func TestSecretsAreNeverMarshalledToJSON(t *testing.T) {
	for _, tc := range []struct {
		name   string
		row    any
		secret string
	}{
		{"credential ciphertext", Credential{Label: "l", Ciphertext: []byte("SEALED-SECRET")}, "SEALED"},
		{"token hash", Token{Name: "n", Hash: "deadbeefcafe"}, "deadbeef"},
	} {
		b, err := json.Marshal(tc.row)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), tc.secret) || strings.Contains(string(b), "U0VBTEVE") { // base64 of SEALED
			t.Errorf("%s: JSON %s contains the secret", tc.name, b)
		}
	}
}

func TestUpdateCredential(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		a := &Credential{Label: "a", Kind: "access_key", Ciphertext: []byte{1}, KeyID: "k1", Last4: "AAAA", CreatedBy: "t"}
		b := &Credential{Label: "b", Kind: "access_key", Ciphertext: []byte{2}, KeyID: "k1", Last4: "BBBB", CreatedBy: "t"}
		for _, c := range []*Credential{a, b} {
			if err := s.CreateCredential(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		a.Label, a.Ciphertext, a.KeyID, a.Last4 = "a2", []byte{9, 9}, "k2", "ZZZZ"
		if err := s.UpdateCredential(ctx, a); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetCredential(ctx, a.ID)
		if err != nil || got.Label != "a2" || got.KeyID != "k2" || got.Last4 != "ZZZZ" || len(got.Ciphertext) != 2 || got.CreatedBy != "t" {
			t.Fatalf("after update: %+v, %v", got, err)
		}
		b.Label = "a2"
		var conflict *ConflictError
		if err := s.UpdateCredential(ctx, b); !errors.As(err, &conflict) || conflict.Field != "label" {
			t.Errorf("renaming onto a used label = %v, want a label conflict", err)
		}
		if err := s.UpdateCredential(ctx, &Credential{ID: "missing", Label: "x"}); !errors.Is(err, ErrNotFound) {
			t.Errorf("update of a missing credential = %v", err)
		}
	})
}
