package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestTheDatabaseKeepsReferencedCredentials(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		storeCredential(t, s, "keys")
		if err := s.CreateCluster(ctx, &Cluster{Name: "gone", Source: SourceProvisionedEKS, CredentialID: ptr("missing")}); !isConflictOn(err, "credential_id") {
			t.Errorf("a cluster naming a missing credential: %v, want a conflict on credential_id", err)
		}
		c := &Cluster{Name: "eks", Source: SourceProvisionedEKS, CredentialID: ptr("keys")}
		if err := s.CreateCluster(ctx, c); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteCredential(ctx, "keys"); !isConflictOn(err, "id") {
			t.Errorf("deleting a credential a cluster uses: %v, want a conflict", err)
		}
		role := &Credential{ID: "role", Label: "role", Kind: "assume_role", Ciphertext: []byte("x"), KeyID: "k", SourceID: ptr("keys")}
		if err := s.CreateCredential(ctx, role); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteCluster(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteCredential(ctx, "keys"); !isConflictOn(err, "id") {
			t.Errorf("deleting an assume_role's source: %v, want a conflict", err)
		}
		if from, err := s.CredentialsFrom(ctx, "keys"); err != nil || len(from) != 1 || from[0].ID != "role" {
			t.Errorf("CredentialsFrom = %v, %v", from, err)
		}
		orphan := &Credential{Label: "orphan", Kind: "assume_role", Ciphertext: []byte("x"), KeyID: "k", SourceID: ptr("missing")}
		if err := s.CreateCredential(ctx, orphan); !isConflictOn(err, "source_id") {
			t.Errorf("an assume_role from a missing source: %v, want a conflict on source_id", err)
		}
		if err := s.SetCredentialSource(ctx, "role", nil); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteCredential(ctx, "keys"); err != nil {
			t.Errorf("deleting a credential nothing uses: %v", err)
		}
	})
}

func TestParallelClusterInsertsAndCredentialDeletesNeverBothSucceed(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		const pairs = 40
		both := 0
		for i := range pairs {
			id := fmt.Sprintf("cred-%d", i)
			storeCredential(t, s, id)
			var wg sync.WaitGroup
			var createErr, deleteErr error
			wg.Add(2)
			go func() {
				defer wg.Done()
				createErr = s.CreateCluster(ctx, &Cluster{Name: fmt.Sprintf("c-%d", i), Source: SourceProvisionedEKS, CredentialID: &id})
			}()
			go func() { defer wg.Done(); deleteErr = s.DeleteCredential(ctx, id) }()
			wg.Wait()
			switch {
			case createErr == nil && deleteErr == nil:
				both++
			case createErr != nil && deleteErr != nil:
				t.Errorf("pair %d: both failed: %v; %v", i, createErr, deleteErr)
			case createErr != nil && !isConflictOn(createErr, "credential_id"), deleteErr != nil && !isConflictOn(deleteErr, "id"):
				t.Errorf("pair %d: unexpected errors: %v; %v", i, createErr, deleteErr)
			}
		}
		if both > 0 {
			t.Errorf("%d of %d pairs both succeeded", both, pairs)
		}
	})
}

func isConflictOn(err error, field string) bool {
	var c *ConflictError
	return errors.As(err, &c) && c.Field == field
}
