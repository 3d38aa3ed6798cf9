// Package serve assembles and runs the KubeOpera server: database, keys,
// first admin token, plugin host, management cluster and the API.
package serve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/sealing"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// Config is what `kubeopera server` is started with.
type Config struct {
	// DataDir holds the SQLite database, the generated encryption key and
	// the first admin token when nothing else is configured.
	DataDir string
	// Database is a PostgreSQL URL or a SQLite path; empty means
	// <DataDir>/kubeopera.db.
	Database  string
	Listen    string
	PluginDir string
	// ManagementKubeconfig reaches the cluster HostClusters live on; empty
	// means in-cluster when running in a cluster, else none.
	ManagementKubeconfig string
	// SelfKubeconfig reaches the cluster to self-register; empty means
	// in-cluster when running in a cluster, else none.
	SelfKubeconfig string
	// TLSCertFile and TLSKeyFile, both set, serve HTTPS; the pair is
	// loaded again when the files change.
	TLSCertFile, TLSKeyFile string
	// Pool sizes the PostgreSQL connection pool; zero means store.DefaultPool.
	Pool store.Pool
	// Getenv reads KUBEOPERA_ENCRYPTION_KEY* and KUBEOPERA_ADMIN_TOKEN.
	Getenv func(string) (string, bool)
	// OverviewConcurrency caps the clusters the overview asks at once and
	// OverviewCacheTTL is how long viewers share one overview; zero means
	// federation's defaults.
	OverviewConcurrency int
	OverviewCacheTTL    time.Duration
	// TrustedProxies are the proxies whose X-Forwarded-For and
	// X-Forwarded-Proto are believed (IP addresses or CIDR prefixes).
	TrustedProxies []string
	// AllowUnsafeKubeconfigs lets connect take kubeconfigs that turn off
	// TLS verification, use a proxy, a link-local server or user
	// information in the server URL.
	AllowUnsafeKubeconfigs bool
	// PublicMetrics serves /metrics without a token.
	PublicMetrics bool
	// Defaults fill the GitOps repository, path, domain and git
	// credentials Secret a connect or provision request leaves out.
	Defaults api.PipelineDefaults
	// SSO is sign-in through an OpenID Provider.
	SSO SSOConfig
}

func (c *Config) databaseDSN() string {
	if c.Database != "" {
		return c.Database
	}
	return filepath.Join(c.DataDir, "kubeopera.db")
}

// SharedDatabase reports whether the database is PostgreSQL, which several
// server and controller replicas may share, rather than a SQLite file one
// process owns.
func (c *Config) SharedDatabase() bool { return store.IsPostgresDSN(c.databaseDSN()) }

// OpenStore opens and migrates the database.
func OpenStore(ctx context.Context, c Config) (*store.Store, error) {
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data directory %s: %w", c.DataDir, err)
	}
	if err := privateSQLiteFiles(c.databaseDSN(), stderrSay); err != nil {
		return nil, err
	}
	pool := c.Pool
	if pool == (store.Pool{}) {
		pool = store.DefaultPool
	}
	st, err := store.OpenPool(ctx, c.databaseDSN(), pool)
	if err != nil {
		return nil, err
	}
	if err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, fmt.Errorf("migrate database: %w", err)
	}
	return st, nil
}

// privateSQLiteFiles makes a SQLite database readable by the owner only:
// it creates a new database file 0600 before SQLite does (its -wal and -shm
// files take the database's mode) and tightens existing ones.
func privateSQLiteFiles(dsn string, say func(string, ...any)) error {
	if store.IsPostgresDSN(dsn) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dsn), 0o700); err != nil {
		return fmt.Errorf("database directory: %w", err)
	}
	f, err := os.OpenFile(dsn, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("create database file %s: %w", dsn, err)
	}
	_ = f.Close()
	for _, p := range []string{dsn, dsn + "-wal", dsn + "-shm"} {
		if err := ensurePrivate(p, say); err != nil {
			return err
		}
	}
	return nil
}

// keyFile is where a generated encryption key lives in the data directory.
func (c *Config) keyFile() string { return filepath.Join(c.DataDir, "encryption.key") }

// LoadKeys loads the encryption keyring from configuration or, when none is
// configured and the database is SQLite, from a key file in the data
// directory, generating it at first start. On PostgreSQL a key must be
// configured. It fails when a stored credential was sealed with a key the
// keyring lacks, naming the key ID.
func LoadKeys(ctx context.Context, c Config, st *store.Store, say func(string, ...any)) (*sealing.Keyring, error) {
	kr, err := sealing.LoadKeyring(c.Getenv)
	if errors.Is(err, sealing.ErrNoKey) && st.Dialect() == store.DialectPostgres {
		// A key generated here would be this server's alone: another
		// replica on the same database could not open what it sealed.
		return nil, fmt.Errorf("encryption key: a PostgreSQL database is shared by every server and controller replica, "+
			"so each must be given the same key: set %s (32 random bytes, base64), or %s to a file holding it "+
			"(an existing %s can be named so)", sealing.EnvKey, sealing.EnvKeyFile, c.keyFile())
	}
	if errors.Is(err, sealing.ErrNoKey) {
		path := c.keyFile()
		if _, statErr := os.Stat(path); errors.Is(statErr, os.ErrNotExist) {
			if err := sealing.GenerateKeyFile(path); err != nil {
				return nil, err
			}
			say("generated an encryption key for cloud credentials at %s; back it up (or set %s)", path, sealing.EnvKey)
		}
		kr, err = sealing.LoadKeyring(func(k string) (string, bool) {
			if k == sealing.EnvKeyFile {
				return path, true
			}
			return c.Getenv(k)
		})
	}
	if err != nil {
		return nil, fmt.Errorf("encryption key: %w", err)
	}
	ids, err := st.CredentialKeyIDs(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if !kr.Has(id) {
			return nil, fmt.Errorf("stored cloud credentials were sealed with key %s, which is not configured: "+
				"set %s to that key, or list it in %s after a rotation", id, sealing.EnvKey, sealing.EnvOldKeys)
		}
	}
	return kr, nil
}

// EnvAdminToken names the variable that can supply the first admin token.
const EnvAdminToken = "KUBEOPERA_ADMIN_TOKEN"

// EnsureAdminToken creates the first platform-admin token when the store has
// none: the one in KUBEOPERA_ADMIN_TOKEN, else a new one written to
// <DataDir>/admin-token (mode 0600). The token itself is never printed.
func EnsureAdminToken(ctx context.Context, c Config, st *store.Store, say func(string, ...any)) error {
	n, err := st.CountTokens(ctx)
	if err != nil || n > 0 {
		return err
	}
	token, fromEnv := c.Getenv(EnvAdminToken)
	if fromEnv && len(token) < 32 {
		return fmt.Errorf("%s must be at least 32 characters", EnvAdminToken)
	}
	path := filepath.Join(c.DataDir, "admin-token")
	if !fromEnv {
		token, _ = api.NewToken()
		// writePrivate makes even a file left over with a looser mode 0600.
		// The file comes first: a stored token nobody has is worse than a
		// file without a token, which is removed below if another server
		// on the same database made the first token.
		if err := writePrivate(path, []byte(token+"\n")); err != nil {
			return fmt.Errorf("write first admin token: %w", err)
		}
	}
	created, err := st.CreateFirstToken(ctx, &store.Token{Name: "initial-admin", Role: string(api.PlatformAdmin), Hash: api.HashToken(token)})
	if err != nil {
		return fmt.Errorf("store first admin token: %w", err)
	}
	if !created {
		if !fromEnv {
			_ = os.Remove(path)
		}
		say("the first platform-admin token already exists: another server on this database made it")
		return nil
	}
	if fromEnv {
		say("created the first platform-admin token from %s", EnvAdminToken)
	} else {
		say("created the first platform-admin token; it is in %s (readable by you only)", path)
	}
	return nil
}
