package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/serve"
	"github.com/ochestra-tech/kubeopera/server/store"
)

func runUsers(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newUsersCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestUsersUnlockClearsAnAccountOrAnAddress(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUBEOPERA_DATABASE_URL", "")
	ctx := context.Background()
	st, err := serve.OpenStore(ctx, serve.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	lock := func(subject string) {
		t.Helper()
		l := store.SignInLimit{Subject: subject, Max: 1, Window: time.Hour}
		_ = st.ReserveSignIn(ctx, at, l)
		if _, throttled := store.IsThrottled(st.ReserveSignIn(ctx, at, l)); !throttled {
			t.Fatalf("%s is not locked", subject)
		}
	}
	locked := func(subject string) bool {
		_, throttled := store.IsThrottled(st.ReserveSignIn(ctx, at, store.SignInLimit{Subject: subject, Max: 1, Window: time.Hour}))
		return throttled
	}
	for _, s := range []string{"account:admin", "address:203.0.113.7/account:admin", "address:203.0.113.7", "address:198.51.100.1"} {
		lock(s)
	}
	st.Close()
	if out, err := runUsers(t, "unlock", "--data-dir", dir, "admin"); err != nil || !strings.Contains(out, `unlocked user "admin" (2 sign-in counters cleared)`) {
		t.Fatalf("unlock admin: %v\n%s", err, out)
	}
	if out, err := runUsers(t, "unlock", "--data-dir", dir, "--address", "203.0.113.7"); err != nil || !strings.Contains(out, "(1 sign-in counters cleared)") {
		t.Fatalf("unlock the address: %v\n%s", err, out)
	}
	if _, err := runUsers(t, "unlock", "--data-dir", dir, "--address", "not-an-ip"); err == nil {
		t.Error("unlock --address not-an-ip succeeded")
	}
	if _, err := runUsers(t, "unlock", "--data-dir", dir); err == nil {
		t.Error("unlock with neither a user nor an address succeeded")
	}
	st, err = serve.OpenStore(ctx, serve.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !locked("address:198.51.100.1") {
		t.Error("unlocking cleared an address it did not name")
	}
	for _, s := range []string{"account:admin", "address:203.0.113.7"} {
		if locked(s) {
			t.Errorf("%s is still locked", s)
		}
	}
}
