package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
	"github.com/ochestra-tech/kubeopera/internal/testkit/together"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// Server replicas on one PostgreSQL behave as one server: whatever one
// of them knows (sessions, sign-in counts, revocations, the one-time
// setup, the clusters) every other one knows at once. Six replicas start
// at the same moment on an empty database, as a Deployment's pods do; two
// of them, A and B, then serve the checks.
func TestTwoReplicasOnOnePostgresBehaveAsOne(t *testing.T) {
	dsn := testpg.Database(t)
	rs := startReplicas(t, 6, dsn, unreachableKubeconfig(t))
	admin := oneFirstAdminToken(t, rs)
	oneSetupSecret(t, rs)
	for _, r := range rs[2:] {
		r.halt(t)
	}
	a, b := rs[0], rs[1]

	t.Run("the one-time setup is done once across both", func(t *testing.T) { setupOnceAcrossBoth(t, a, b) })
	t.Run("a session made on A works on B and ends on B", func(t *testing.T) { sessionAcrossBoth(t, a, b) })
	t.Run("wrong passwords split over both hit one sign-in limit", func(t *testing.T) { signInLimitAcrossBoth(t, a, b) })
	t.Run("a token revoked on A is refused on B at once", func(t *testing.T) { revocationAcrossBoth(t, a, b, admin) })
	t.Run("a cluster deleted on A is not served by B", func(t *testing.T) { deletionAcrossBoth(t, a, b, admin, dsn) })
}

// unreachableKubeconfig is a kubeconfig for the cluster the servers "run
// in", whose API server is a loopback port nothing listens on: the
// overview lists the host cluster as unreachable, which is all the
// deletion check needs, without a sandbox.
func unreachableKubeconfig(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "self.kubeconfig")
	kc := `apiVersion: v1
kind: Config
clusters: [{name: self, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: self, user: {token: not-a-real-token}}]
contexts: [{name: self, context: {cluster: self, user: self}}]
current-context: self
`
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// oneFirstAdminToken checks that of the replicas that started at once
// exactly one made the first admin token, and returns it.
func oneFirstAdminToken(t *testing.T, rs []*replica) string {
	t.Helper()
	var tokens []string
	for _, r := range rs {
		if tok := r.file("admin-token"); tok != "" {
			tokens = append(tokens, tok)
		}
	}
	made := countIn(rs, "created the first platform-admin token")
	if len(tokens) != 1 || made != 1 {
		t.Fatalf("%d replicas starting at once on an empty database left %d admin-token files and %d said they "+
			"created the first token, want 1 and 1", len(rs), len(tokens), made)
	}
	if code := rs[len(rs)-1].do(t, request{method: "GET", path: "/api/v1/tokens", bearer: tokens[0]}).code; code != 200 {
		t.Fatalf("the first admin token on another replica: %d", code)
	}
	return tokens[0]
}

// oneSetupSecret checks that the replicas hold one and the same setup
// secret and that exactly one of them generated it.
func oneSetupSecret(t *testing.T, rs []*replica) {
	t.Helper()
	secrets := map[string]bool{}
	for _, r := range rs {
		secrets[r.file("setup-secret")] = true
	}
	generated := countIn(rs, "generated a one-time setup secret")
	if len(secrets) != 1 || secrets[""] || generated != 1 {
		t.Fatalf("%d replicas hold %d different setup secrets (none: %v) and %d said they generated one, "+
			"want one secret on every replica, generated once", len(rs), len(secrets), secrets[""], generated)
	}
}

const (
	adminUser     = "ops"
	adminPassword = "first-admin-password"
)

// setupOnceAcrossBoth sends 8 setup calls at once, alternately to A and
// B, with the secret from B's data directory: exactly one creates the
// administrator.
func setupOnceAcrossBoth(t *testing.T, a, b *replica) {
	secret := b.file("setup-secret")
	codes := make([]int, 8)
	together.Run(len(codes), func(i int) {
		r := []*replica{a, b}[i%2]
		codes[i] = r.do(t, request{method: "POST", path: "/api/v1/setup/admin",
			headers: map[string]string{"X-KubeOpera-Setup-Secret": secret},
			body:    map[string]string{"email": fmt.Sprintf("ops%d@example.com", i), "username": adminUser, "password": adminPassword}}).code
	})
	count := map[int]int{}
	for _, c := range codes {
		count[c]++
	}
	if count[201] != 1 || count[409] != len(codes)-1 {
		t.Fatalf("8 setup calls split over A and B answered %v, want one 201 and seven 409", count)
	}
	for _, r := range []*replica{a, b} {
		var st struct {
			AdminExists bool `json:"adminExists"`
		}
		r.do(t, request{method: "GET", path: "/api/v1/setup"}).decode(t, &st)
		if !st.AdminExists {
			t.Errorf("replica %s says no administrator exists", r.name)
		}
	}
}

// sessionAcrossBoth signs in on A, uses the cookie on B, signs out on B
// and finds the cookie refused on A.
func sessionAcrossBoth(t *testing.T, a, b *replica) {
	in := a.do(t, request{method: "POST", path: "/api/v1/session", body: map[string]string{"username": adminUser, "password": adminPassword}})
	if in.code != 201 {
		t.Fatalf("sign in on A: %d %s", in.code, in.body)
	}
	var sess struct {
		CSRFToken string `json:"csrfToken"`
	}
	in.decode(t, &sess)
	var cookie *http.Cookie
	for _, c := range in.cookies {
		if c.Name == "kubeopera_session" {
			cookie = c
		}
	}
	if cookie == nil {
		t.Fatal("sign in on A set no session cookie")
	}
	if got := b.do(t, request{method: "GET", path: "/api/v1/clusters", cookie: cookie}); got.code != 200 {
		t.Fatalf("A's session on B: %d %s", got.code, got.body)
	}
	if got := b.do(t, request{method: "DELETE", path: "/api/v1/session", cookie: cookie,
		headers: map[string]string{"X-CSRF-Token": sess.CSRFToken}}); got.code != 204 {
		t.Fatalf("sign out on B: %d %s", got.code, got.body)
	}
	for _, r := range []*replica{a, b} {
		if code := r.do(t, request{method: "GET", path: "/api/v1/clusters", cookie: cookie}).code; code != 401 {
			t.Errorf("the session ended on B still works on %s: %d, want 401", r.name, code)
		}
	}
}

// signInLimitAcrossBoth alternates wrong passwords between A and B: the
// sixth is refused whichever replica gets it, as on one server (5 failures
// of an account from one address a window).
func signInLimitAcrossBoth(t *testing.T, a, b *replica) {
	var codes []int
	for i := range 8 {
		r := []*replica{a, b}[i%2]
		codes = append(codes, r.do(t, request{method: "POST", path: "/api/v1/session",
			body: map[string]string{"username": adminUser, "password": "wrong-password-guess-0" + fmt.Sprint(i)}}).code)
	}
	want := []int{401, 401, 401, 401, 401, 429, 429, 429}
	if fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Fatalf("wrong passwords alternating A, B answered %v, want %v", codes, want)
	}
	for _, r := range []*replica{a, b} {
		if code := r.do(t, request{method: "POST", path: "/api/v1/session",
			body: map[string]string{"username": adminUser, "password": adminPassword}}).code; code != 429 {
			t.Errorf("the right password on %s while the account is throttled: %d, want 429", r.name, code)
		}
	}
}

// revocationAcrossBoth issues a token on A, uses it on B (so B has it
// cached), revokes it on A and finds B refusing it on the next request.
func revocationAcrossBoth(t *testing.T, a, b *replica, admin string) {
	made := a.do(t, request{method: "POST", path: "/api/v1/tokens", bearer: admin, body: map[string]string{"name": "ci", "role": "viewer"}})
	if made.code != 201 {
		t.Fatalf("issue a token on A: %d %s", made.code, made.body)
	}
	var tok struct{ ID, Token string }
	made.decode(t, &tok)
	for _, path := range []string{"/api/v1/clusters", "/api/v1/providers"} {
		if code := b.do(t, request{method: "GET", path: path, bearer: tok.Token}).code; code != 200 {
			t.Fatalf("A's token on B, %s: %d", path, code)
		}
	}
	if code := a.do(t, request{method: "DELETE", path: "/api/v1/tokens/" + tok.ID, bearer: admin}).code; code != 204 {
		t.Fatalf("revoke on A: %d", code)
	}
	for _, path := range []string{"/api/v1/clusters", "/api/v1/providers"} {
		if code := b.do(t, request{method: "GET", path: path, bearer: tok.Token}).code; code != 401 {
			t.Errorf("the token revoked on A, on B at once, %s: %d, want 401", path, code)
		}
	}
}

// deletionAcrossBoth adds the host cluster's row (as register-self does),
// has B cache its overview and list, deletes the cluster on A, and finds
// B's very next overview, list and detail without it. How long B would
// have served it is measured and reported when it does.
func deletionAcrossBoth(t *testing.T, a, b *replica, admin, dsn string) {
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	row := &store.Cluster{Name: "host", Source: store.SourceSelfRegistered, IsHost: true, Status: "Ready"}
	if err := st.CreateCluster(context.Background(), row); err != nil {
		t.Fatal(err)
	}
	id := []byte(`"` + row.ID + `"`)
	lists := func(path string) bool {
		got := b.do(t, request{method: "GET", path: path, bearer: admin})
		if got.code != 200 {
			t.Fatalf("%s on B: %d %s", path, got.code, got.body)
		}
		return bytes.Contains(got.body, id)
	}
	for _, path := range []string{"/api/v1/federation/overview", "/api/v1/clusters"} {
		if !lists(path) {
			t.Fatalf("%s on B does not list the stored cluster", path)
		}
	}
	if code := a.do(t, request{method: "DELETE", path: "/api/v1/clusters/" + row.ID, bearer: admin}).code; code != 204 {
		t.Fatalf("delete on A: %d", code)
	}
	deleted := time.Now()
	if code := b.do(t, request{method: "GET", path: "/api/v1/clusters/" + row.ID, bearer: admin}).code; code != 404 {
		t.Errorf("the cluster deleted on A, on B: %d, want 404", code)
	}
	for _, path := range []string{"/api/v1/federation/overview", "/api/v1/clusters"} {
		if !lists(path) {
			continue
		}
		served := staleFor(t, deleted, func() bool { return lists(path) })
		t.Errorf("%s on B served the cluster deleted on A for %v after the delete, want not at all", path, served)
	}
}

// staleFor polls until still reports false (up to 15s) and returns how
// long after since that was: the figure a failure reports.
func staleFor(t *testing.T, since time.Time, still func() bool) time.Duration {
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if !still() {
			break
		}
	}
	return time.Since(since).Round(10 * time.Millisecond)
}

// Replicas on one PostgreSQL must open what each other sealed, so a
// server on PostgreSQL started without a key refuses to start, naming the
// variable to set, and generates none of its own.
func TestPostgresNeedsAConfiguredEncryptionKey(t *testing.T) {
	data := t.TempDir()
	c := Config{DataDir: data, Database: testpg.Database(t), Listen: "127.0.0.1:0", PluginDir: t.TempDir(), Getenv: noEnv}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- Run(ctx, c, io.Discard, io.Discard, ready) }()
	var err error
	select {
	case err = <-done:
	case <-ready:
		cancel()
		<-done
	}
	if err == nil || !strings.Contains(err.Error(), "KUBEOPERA_ENCRYPTION_KEY") {
		t.Fatalf("start on PostgreSQL without a key = %v, want a refusal naming KUBEOPERA_ENCRYPTION_KEY", err)
	}
	if _, err := os.Stat(filepath.Join(data, "encryption.key")); !os.IsNotExist(err) {
		t.Errorf("a key of this replica's own was generated (%v)", err)
	}
}

// Replicas that reach the first-token step at the same moment on a
// migrated, empty database (the migration lock no longer staggers them)
// make one first admin token between them, and only its maker keeps an
// admin-token file.
func TestFirstAdminTokenIsMadeOnceWhenReplicasRaceForIt(t *testing.T) {
	dsn := testpg.Database(t)
	const n = 8
	cs, sts := make([]Config, n), make([]*store.Store, n)
	for i := range cs {
		cs[i] = Config{DataDir: t.TempDir(), Database: dsn, Getenv: noEnv}
		sts[i] = openTestStore(t, cs[i])
	}
	outs := make([]strings.Builder, n)
	together.Run(n, func(i int) {
		if err := EnsureAdminToken(context.Background(), cs[i], sts[i], sayInto(&outs[i])); err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	})
	files := 0
	if tokens, err := sts[0].CountTokens(context.Background()); err != nil || tokens != 1 {
		t.Errorf("%d replicas at once stored %d first admin tokens (%v), want 1", n, tokens, err)
	}
	for i := range cs {
		if _, err := os.Stat(filepath.Join(cs[i].DataDir, "admin-token")); err == nil {
			files++
		}
	}
	if files != 1 {
		t.Errorf("%d replicas at once left %d admin-token files, want 1", n, files)
	}
}
