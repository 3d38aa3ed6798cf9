package main

import (
	"bytes"
	"context"
	"fmt"
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

func TestCLIMutationsAreAudited(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUBEOPERA_DATABASE_URL", "")
	if out, err := runTokens(t, "create", "--data-dir", dir, "--name", "ci"); err != nil {
		t.Fatalf("tokens create: %v\n%s", err, out)
	}
	if out, err := runTokens(t, "revoke", "--data-dir", dir, "ci"); err != nil {
		t.Fatalf("tokens revoke: %v\n%s", err, out)
	}
	if out, err := runUsers(t, "create", "--data-dir", dir, "--username", "ops", "--email", "ops@example.com"); err != nil {
		t.Fatalf("users create: %v\n%s", err, out)
	}
	if out, err := runUsers(t, "unlock", "--data-dir", dir, "--address", "203.0.113.7"); err != nil {
		t.Fatalf("users unlock: %v\n%s", err, out)
	}
	st, err := serve.OpenStore(context.Background(), serve.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.ListAuditEvents(context.Background(), store.AuditFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range evs {
		if !strings.HasPrefix(ev.Actor, "cli") || ev.Method != "CLI" || ev.Target == "" || ev.RequestID == "" {
			t.Errorf("event %+v: want actor cli:<user>, method CLI, a target and an ID", ev)
		}
		got = append(got, fmt.Sprintf("%s %d", ev.Route, ev.Status))
	}
	want := "users unlock 200,users create 201,tokens revoke 200,tokens create 201"
	if strings.Join(got, ",") != want {
		t.Errorf("CLI audit events %q, want %q", strings.Join(got, ","), want)
	}
}

func TestAuditCommandCountsUnsignedRequests(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUBEOPERA_DATABASE_URL", "")
	st, err := serve.OpenStore(context.Background(), serve.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := st.CountAuditNoise(context.Background(), time.Now(), "DELETE", 404); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	cmd := newAuditCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--data-dir", dir, "--unsigned", "24h"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if fields := strings.Fields(strings.Split(strings.TrimSpace(out.String()), "\n")[1]); len(fields) != 5 ||
		fields[2] != "DELETE" || fields[3] != "404" || fields[4] != "3" {
		t.Errorf("audit --unsigned output:\n%s", out.String())
	}
}
