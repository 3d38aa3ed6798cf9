// Package api is the KubeOpera REST API under /api/v1: clusters (list,
// connect, provision, self-register, disconnect), providers and cloud
// credentials, plus health, metrics and the OpenAPI document. Handlers are
// split by domain; queries live in server/store; access is decided in one
// place (authorize) from the route table.
package api

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/gofiber/fiber/v2/middleware/requestid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/server/federation"
	"github.com/ochestra-tech/kubeopera/server/health"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/inspect"
	"github.com/ochestra-tech/kubeopera/server/livecache"
	"github.com/ochestra-tech/kubeopera/server/oidc"
	"github.com/ochestra-tech/kubeopera/server/sealing"
	"github.com/ochestra-tech/kubeopera/server/store"
	"github.com/ochestra-tech/kubeopera/server/web"
)

// Limits on what a request may carry.
const (
	maxBodyBytes       = 1 << 20
	maxKubeconfigBytes = 256 << 10
)

// Providers is the plugin host as the API uses it.
type Providers interface {
	Plugins() []plugin.Plugin
	Skipped() []plugin.Skipped
	Provider(name string) (*plugin.Supervised, error)
}

// Inspector inspects the cluster the server runs in.
type Inspector interface {
	Inspect(ctx context.Context) (inspect.Inventory, error)
	Nodes(ctx context.Context) ([]inspect.NodeInfo, error)
}

// Deps are what the API is built on.
type Deps struct {
	Store     *store.Store
	Keyring   *sealing.Keyring
	Providers Providers
	// Registry hands clusters to the controller; hostclusters.Unconfigured
	// when there is no management cluster.
	Registry hostclusters.Registry
	// Inspector is nil when the server cannot see the cluster it runs in.
	Inspector Inspector
	Logger    *slog.Logger
	// Fleet lists reachable clusters for the overview and health routes;
	// nil when none can be reached.
	Fleet Fleet
	// Overview configures the fan-out (timeout, concurrency, pricing,
	// assessor) and how long viewers share one result (CacheTTL).
	Overview federation.Options
	// SetupSecret is what POST /setup/admin must carry in
	// X-KubeOpera-Setup-Secret; empty refuses every setup call.
	SetupSecret string
	// SetupDone, if not nil, is called once the first administrator
	// exists, so the secret's file can be removed.
	SetupDone func(ctx context.Context)
	// NoSyncOnRead turns off merging HostCluster phases into cluster reads
	// (for the benchmark's baseline).
	NoSyncOnRead bool

	// TokenUsage collects token uses for batched last_used_at writes; the
	// caller runs it. nil keeps them in memory only.
	TokenUsage *TokenUsage

	// hashPassword replaces bcrypt in tests that count hashes.
	hashPassword func([]byte) ([]byte, error)
	// Sessions is the dashboard's sign-in policy (defaults when zero).
	Sessions SessionOptions
	// Web is the dashboard's build, served at / (nil: no dashboard).
	Web fs.FS
	// TrustedProxies are the proxies (a Gateway, a load balancer) whose
	// X-Forwarded-For and X-Forwarded-Proto are believed; from any other
	// peer both headers are ignored.
	TrustedProxies []netip.Prefix
	// AllowUnsafeKubeconfigs lets POST /clusters/connect take kubeconfigs
	// that turn off TLS verification, name a proxy, a link-local server or
	// user information in the server URL (refused by default).
	AllowUnsafeKubeconfigs bool
	// PublicMetrics serves /metrics without a token (for a scraper that
	// sends none); otherwise it needs a viewer's.
	PublicMetrics bool
	// Defaults fill what connect and provision leave out.
	Defaults PipelineDefaults
	// SSO signs people in through an OpenID Provider (nil: not offered).
	SSO *oidc.Provider
	// PasswordsOff refuses sign-in with a local password (break-glass
	// stays: tokens made with the local CLI).
	PasswordsOff bool
	// ProxyCA is the CA a user's kubeconfig trusts for this server's
	// cluster proxy (PEM); empty for the system's roots.
	ProxyCA []byte
}

type server struct {
	store     *store.Store
	keyring   *sealing.Keyring
	providers Providers
	registry  hostclusters.Registry
	inspector Inspector
	log       *slog.Logger
	sync      bool
	metrics   *metrics

	fleet        Fleet
	overviewOpts federation.Options
	overviews    *federation.Cache

	// healthCache keeps each cluster's score for a few seconds, so viewers
	// loading the same page share one assessment.
	healthCache *livecache.Cache[health.Score]
	// details share the cluster page's live reads (nodes, conditions,
	// events) the same way.
	details detailCaches

	tokenUsage *TokenUsage
	principals *principalCache

	setupSecret  string
	setupDone    func(context.Context)
	setupMu      sync.Mutex
	hashPassword func([]byte) ([]byte, error)
	sessions     SessionOptions

	trustedProxies         []netip.Prefix
	allowUnsafeKubeconfigs bool
	defaults               PipelineDefaults

	sso          *oidc.Provider
	passwordsOff bool
	proxyCA      []byte
}

// New returns the API as a fiber app.
func New(d Deps) *fiber.App {
	_, app := newServer(d)
	return app
}

// newServer is New, also returning the server for tests.
func newServer(d Deps) (*server, *fiber.App) {
	s := &server{store: d.Store, keyring: d.Keyring, providers: d.Providers, registry: d.Registry,
		inspector: d.Inspector, log: d.Logger, sync: !d.NoSyncOnRead, metrics: newMetrics(prometheus.NewRegistry()),
		fleet: d.Fleet, overviewOpts: d.Overview, setupSecret: d.SetupSecret, setupDone: d.SetupDone,
		overviews:    federation.NewCache(d.Overview.CacheTTL),
		hashPassword: d.hashPassword, healthCache: livecache.New[health.Score](livecache.DefaultTTL, time.Minute),
		details: newDetailCaches()}
	s.principals = newPrincipalCache()
	s.tokenUsage = d.TokenUsage
	if s.tokenUsage == nil {
		s.tokenUsage = NewTokenUsage(d.Store)
	}
	if s.hashPassword == nil {
		s.hashPassword = defaultHashPassword
	}
	if s.overviewOpts.Timeout == 0 {
		s.overviewOpts.Timeout = federation.DefaultTimeout
	}
	s.overviewOpts.StatusBadge = badge
	s.sessions = d.Sessions.withDefaults()
	s.trustedProxies, s.allowUnsafeKubeconfigs, s.defaults = d.TrustedProxies, d.AllowUnsafeKubeconfigs, d.Defaults
	s.sso, s.passwordsOff = d.SSO, d.PasswordsOff
	s.proxyCA = d.ProxyCA
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.registry == nil {
		s.registry = hostclusters.Unconfigured{}
	}
	app := fiber.New(fiber.Config{
		BodyLimit:             maxBodyBytes,
		ErrorHandler:          s.errorHandler,
		DisableStartupMessage: true,
		// Fiber otherwise hands out strings that alias its reused request
		// buffers: a method or path kept in a metric label, log or map
		// would change under it with the next request.
		Immutable:    true,
		ReadTimeout:  30 * time.Second,
		WriteTimeout: 60 * time.Second,
		// X-Forwarded-Proto (c.Protocol) only from a trusted proxy;
		// clientAddr reads X-Forwarded-For by the same list.
		EnableTrustedProxyCheck: true,
		TrustedProxies:          prefixStrings(d.TrustedProxies),
	})
	app.Use(recover.New(), securityHeaders, serverRequestID, requestid.New(), s.observe, s.audit, refuseNUL)
	for _, r := range routes {
		h := []fiber.Handler{s.authorize(servedRole(r, d.PublicMetrics), scopeOf(r.path), confirmsToken[r.method+" "+r.path]), func(c *fiber.Ctx) error { return r.handler(s, c) }}
		app.Add(r.method, r.path, h...)
		if r.method == http.MethodGet { // HEAD answers as GET, without the body (RFC 9110 9.3.2)
			app.Add(http.MethodHead, r.path, h...)
		}
	}
	if d.Web != nil {
		app.Use(web.Handler(d.Web))
	}
	app.Use(notFound)
	return s, app
}

// observe logs every request and records its metrics. Only the method,
// the route pattern, the status and the timing are logged: never headers,
// bodies or query strings, which can carry tokens and kubeconfigs.
func (s *server) observe(c *fiber.Ctx) error {
	start := time.Now()
	err := c.Next()
	status := c.Response().StatusCode()
	if err != nil {
		status = toProblem(err).Status
	}
	route := routePattern(c)
	elapsed := time.Since(start)
	s.metrics.observe(c.Method(), route, status, elapsed)
	clientID, _ := c.Locals(clientRequestIDKey).(string)
	s.log.Info("request", "method", c.Method(), "route", route, "status", status,
		"duration_ms", float64(elapsed.Microseconds())/1000, "request_id", requestID(c), "client_request_id", clientID,
		"principal", who(c).Name)
	return err
}

// servedRole is the role a route needs as served: the table's, except
// that /metrics is anonymous when the server makes it public (it needs a
// viewer otherwise: metrics name every route and its load).
func servedRole(r route, publicMetrics bool) Role {
	if r.path == "/metrics" && publicMetrics {
		return Anonymous
	}
	return r.role
}

func prefixStrings(ps []netip.Prefix) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

func routePattern(c *fiber.Ctx) string {
	if r := c.Route(); r != nil && r.Path != "/" {
		return r.Path
	}
	return "unmatched"
}

func requestID(c *fiber.Ctx) string {
	id, _ := c.Locals(requestid.ConfigDefault.ContextKey).(string)
	return id
}
