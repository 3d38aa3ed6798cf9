package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixture is a row or more for every table of the landed schema, held as
// the store's own types so the values are written once and compared with
// what the store reads back.
type fixture struct {
	credentials []Credential
	clusters    []Cluster
	users       []User
	sessions    []Session
	tokens      []Token
	audit       []AuditEvent
	counters    []signInCounter
	counts      []AuditCount
	secret      SetupSecret
}

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// upgradeFixture gives every column a value other than its default, and
// every nullable column NULL in one row and a value in another. Times are
// around now so nothing has expired when the store reads it back.
func upgradeFixture(now time.Time) fixture {
	at := func(d time.Duration) time.Time { return now.Add(d) }
	return fixture{
		credentials: []Credential{
			{ID: "cred-keys", Label: "prod keys", Team: DefaultTeam, Kind: "access_key", Ciphertext: []byte{0, 1, 2, 0xfe, 0xff},
				KeyID: "key-2026", Last4: "WXYZ", CreatedBy: "admin", CreatedAt: at(-72 * time.Hour), UpdatedAt: at(-48 * time.Hour)},
			{ID: "cred-role", Label: "deploy role", Team: DefaultTeam, Kind: "assume_role", Ciphertext: []byte("sealed role"),
				KeyID: "key-2025", Last4: "", SourceID: ptr("cred-keys"), CreatedBy: "ops", CreatedAt: at(-47 * time.Hour), UpdatedAt: at(-46 * time.Hour)},
		},
		clusters: []Cluster{
			{ID: "c-host", Name: "management", Team: DefaultTeam, Provider: "kind", Region: "local", Source: SourceSelfRegistered, IsHost: true,
				Status: "Ready", Message: "all nodes ready", KubernetesVersion: "v1.37.2", NodeCount: 3, ReadyNodeCount: 3,
				ClusterUID: ptr("uid-host"), CreatedAt: at(-100 * time.Hour), UpdatedAt: at(-time.Hour)},
			{ID: "c-eks", Name: "payments", Team: DefaultTeam, Provider: "aws", Region: "eu-west-1", Source: SourceProvisionedEKS, Plugin: "aws-eks",
				Status: "Provisioning", Message: "creating the node group", KubernetesVersion: "v1.36.1", NodeCount: 2, ReadyNodeCount: 1,
				ClusterUID: ptr("uid-eks"), CredentialID: ptr("cred-role"), CreatedAt: at(-40 * time.Hour), UpdatedAt: at(-2 * time.Hour)},
			{ID: "c-local", Name: "dev", Team: DefaultTeam, Provider: "local", Source: SourceProvisioned, Plugin: "local",
				Status: "Failed", Message: "kube-apiserver exited", CreatedAt: at(-30 * time.Hour), UpdatedAt: at(-29 * time.Hour)},
		},
		users: []User{
			{ID: "u-admin", Email: "admin@example.com", Username: "admin", PasswordHash: "$argon2id$v=19$m=65536,t=3,p=2$c2FsdA$aGFzaA",
				Role: "platform-admin", SuperAdmin: true, CreatedAt: at(-200 * time.Hour)},
			{ID: "u-viewer", Email: "viewer@example.com", Username: "viewer", PasswordHash: "$argon2id$v=19$m=65536,t=3,p=2$c2FsdDI$aGFzaDI",
				Role: "viewer", CreatedAt: at(-150 * time.Hour)},
		},
		sessions: []Session{
			{IDHash: hashOf("cookie-admin"), UserID: "u-admin", CSRFToken: "csrf-admin",
				CreatedAt: at(-time.Hour), LastSeenAt: at(-10 * time.Minute), ExpiresAt: at(11 * time.Hour)},
			{IDHash: hashOf("cookie-viewer"), UserID: "u-viewer", CSRFToken: "csrf-viewer",
				CreatedAt: at(-2 * time.Hour), LastSeenAt: at(-20 * time.Minute), ExpiresAt: at(10 * time.Hour)},
		},
		tokens: []Token{
			{ID: "t-initial", Name: "initial-admin", Role: "platform-admin", Hash: hashOf("token-initial"),
				CreatedAt: at(-200 * time.Hour), LastUsedAt: ptr(at(-time.Hour))},
			{ID: "t-login", Name: "login admin", Role: "platform-admin", Hash: hashOf("token-login"),
				CreatedAt: at(-5 * time.Hour), ExpiresAt: ptr(at(30 * 24 * time.Hour))},
			{ID: "t-ci", Name: "ci", Role: "viewer", Hash: hashOf("token-ci"), CreatedAt: at(-50 * time.Hour),
				LastUsedAt: ptr(at(-3 * time.Hour)), ExpiresAt: ptr(at(24 * time.Hour)), RevokedAt: ptr(at(-2 * time.Hour))},
		},
		audit: []AuditEvent{
			{ID: "a-1", At: at(-90 * time.Minute), Actor: "admin", ActorID: "u-admin", Method: "POST",
				Route: "/api/v1/clusters", Target: "c-local", Status: 201, RequestID: "req-1"},
			{ID: "a-2", At: at(-80 * time.Minute), Actor: "ci", ActorID: "t-ci", Method: "DELETE",
				Route: "/api/v1/clusters/:id", Target: "c-eks", Status: 403, RequestID: "req-2"},
		},
		counters: []signInCounter{
			{Subject: "account:admin", Failures: 3, WindowStart: at(-5 * time.Minute), LastAt: at(-time.Minute)},
			{Subject: "address:192.0.2.7", Failures: 1, WindowStart: at(-4 * time.Minute)},
		},
		counts: []AuditCount{
			{Hour: now.Truncate(time.Hour).Add(-2 * time.Hour), Method: "POST", Status: 401, Count: 17},
			{Hour: now.Truncate(time.Hour).Add(-time.Hour), Method: "DELETE", Status: 403, Count: 2},
		},
		secret: SetupSecret{ID: 1, Ciphertext: []byte("sealed setup secret"), KeyID: "key-2026", CreatedAt: at(-200 * time.Hour)},
	}
}

// insert writes the fixture with plain SQL naming the landed schema's
// columns (as the server of that commit wrote them), in an order that
// satisfies the references, and returns the tables it wrote.
func (f fixture) insert(ctx context.Context, t *testing.T, s *Store) []string {
	t.Helper()
	var tables []string
	exec := func(table, cols string, args ...any) {
		t.Helper()
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(args)), ", ")
		q := "INSERT INTO " + table + " (" + cols + ") VALUES (" + marks + ")"
		if _, err := s.db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if !slices.Contains(tables, table) {
			tables = append(tables, table)
		}
	}
	for _, c := range f.credentials {
		exec("cloud_credentials", "id, label, kind, ciphertext, key_id, last4, created_by, created_at, updated_at, source_id",
			c.ID, c.Label, c.Kind, c.Ciphertext, c.KeyID, c.Last4, c.CreatedBy, c.CreatedAt, c.UpdatedAt, c.SourceID)
	}
	for _, c := range f.clusters {
		exec("clusters", "id, name, provider, region, source, is_host, status, message, kubernetes_version, "+
			"node_count, ready_node_count, cluster_uid, credential_id, created_at, updated_at, plugin",
			c.ID, c.Name, c.Provider, c.Region, string(c.Source), c.IsHost, c.Status, c.Message, c.KubernetesVersion,
			c.NodeCount, c.ReadyNodeCount, c.ClusterUID, c.CredentialID, c.CreatedAt, c.UpdatedAt, c.Plugin)
	}
	for _, u := range f.users {
		exec("users", "id, email, username, password_hash, role, super_admin, created_at",
			u.ID, u.Email, u.Username, u.PasswordHash, u.Role, u.SuperAdmin, u.CreatedAt)
	}
	for _, x := range f.sessions {
		exec("sessions", "id_hash, user_id, csrf_token, created_at, last_seen_at, expires_at",
			x.IDHash, x.UserID, x.CSRFToken, x.CreatedAt, x.LastSeenAt, x.ExpiresAt)
	}
	for _, x := range f.tokens {
		exec("api_tokens", "id, name, role, hash, created_at, last_used_at, expires_at, revoked_at",
			x.ID, x.Name, x.Role, x.Hash, x.CreatedAt, x.LastUsedAt, x.ExpiresAt, x.RevokedAt)
	}
	for _, e := range f.audit {
		exec("audit_events", "id, at, actor, actor_id, method, route, target, status, request_id",
			e.ID, e.At, e.Actor, e.ActorID, e.Method, e.Route, e.Target, e.Status, e.RequestID)
	}
	for _, c := range f.counters {
		var last *time.Time
		if !c.LastAt.IsZero() {
			last = &c.LastAt
		}
		exec("sign_in_failures", "subject, failures, window_start, last_at", c.Subject, c.Failures, c.WindowStart, last)
	}
	for _, c := range f.counts {
		exec("audit_counts", "hour, method, status, count", c.Hour, c.Method, c.Status, c.Count)
	}
	exec("setup_secret", "id, ciphertext, key_id, created_at", f.secret.ID, f.secret.Ciphertext, f.secret.KeyID, f.secret.CreatedAt)
	return tables
}
