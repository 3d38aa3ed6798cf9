package store

import (
	"context"
	"testing"
	"time"
)

// The clusters' stamp changes with every added and every deleted row, and
// with a later update, on both databases.
func TestClustersStampChangesWithEveryRowAddedOrDeleted(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := useFakeClock(s)
		seen := map[string]string{}
		stamp := func(what string) {
			t.Helper()
			got, err := s.ClustersStamp(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if earlier, ok := seen[got]; ok {
				t.Errorf("stamp after %s is %q, the same as after %s", what, got, earlier)
			}
			seen[got] = what
		}
		stamp("nothing")
		a := &Cluster{Name: "a", Source: SourceConnectedExisting}
		if err := s.CreateCluster(ctx, a); err != nil {
			t.Fatal(err)
		}
		stamp("adding a")
		clock.Advance(time.Second)
		b := &Cluster{Name: "b", Source: SourceConnectedExisting}
		if err := s.CreateCluster(ctx, b); err != nil {
			t.Fatal(err)
		}
		stamp("adding b")
		if err := s.DeleteCluster(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		stamp("deleting a")
	})
}

// The first setup secret stored wins; a second claim gets it back, not its
// own, until it is deleted.
func TestClaimSetupSecretKeepsTheFirst(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		got, created, err := s.ClaimSetupSecret(ctx, &SetupSecret{Ciphertext: []byte("first"), KeyID: "k1"})
		if err != nil || !created || string(got.Ciphertext) != "first" {
			t.Fatalf("first claim: %v, created %v, %q", err, created, got.Ciphertext)
		}
		got, created, err = s.ClaimSetupSecret(ctx, &SetupSecret{Ciphertext: []byte("second"), KeyID: "k2"})
		if err != nil || created || string(got.Ciphertext) != "first" || got.KeyID != "k1" {
			t.Fatalf("second claim: %v, created %v, %q under %s, want the first", err, created, got.Ciphertext, got.KeyID)
		}
		if err := s.DeleteSetupSecret(ctx); err != nil {
			t.Fatal(err)
		}
		if _, created, err := s.ClaimSetupSecret(ctx, &SetupSecret{Ciphertext: []byte("third"), KeyID: "k1"}); err != nil || !created {
			t.Errorf("claim after delete: %v, created %v", err, created)
		}
	})
}

// CreateFirstToken stores a token only into an empty table.
func TestCreateFirstTokenOnlyWhenThereIsNone(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for i, want := range []bool{true, false} {
			created, err := s.CreateFirstToken(ctx, &Token{Name: "initial-admin", Role: "platform-admin", Hash: string(rune('a' + i))})
			if err != nil || created != want {
				t.Errorf("call %d: created %v (%v), want %v", i+1, created, err, want)
			}
		}
		if n, err := s.CountTokens(ctx); err != nil || n != 1 {
			t.Errorf("%d tokens (%v), want 1", n, err)
		}
	})
}
