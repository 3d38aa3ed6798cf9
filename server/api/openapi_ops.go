package api

import (
	"net/http"
	"slices"
	"strings"
)

// opDoc is what the document says of a route beyond the route table: its
// operationId and tag (stable: generated clients name their methods after
// them), the statuses its handler answers besides the route's own, and its
// query parameters. Statuses every route of a kind answers are added by
// statusesOf, not listed here.
type opDoc struct {
	id, tag string
	// also are further success statuses (register-self answers 200 for a
	// cluster registered before, DELETE /clusters/{id} 204 when there is no
	// HostCluster to wait for).
	also []int
	// errors are the 4xx and 5xx statuses the handler itself returns.
	errors []int
	query  []queryParam
}

// queryParam is one query parameter; enum, when set, lists its values.
type queryParam struct {
	name, description string
	integer           bool
	enum              []any
}

// The tags, in the order the document lists them.
var tags = []struct{ name, description string }{
	{"system", "Health, readiness, metrics and this document"},
	{"setup", "Creating the first administrator"},
	{"session", "Signing in and out"},
	{"clusters", "Clusters: list, connect, provision, register, disconnect, tear down"},
	{"federation", "All clusters at once"},
	{"providers", "Provider plugins"},
	{"credentials", "Cloud credentials"},
	{"tokens", "API tokens"},
	{"users", "People who sign in: created, disabled, reset and signed out by platform admins"},
	{"teams", "Teams own clusters and credentials; a member's role on a team (viewer, operator, admin) decides what they may do there"},
	{"audit", "The audit log"},
}

var clusterQuery = []queryParam{
	{name: "limit", description: "Page size (1 to 500); without it every matching cluster is returned", integer: true},
	{name: "continue", description: "The continue value of the previous page (needs the same limit)"},
	{name: "phase", description: "Only clusters in this phase", enum: phaseEnum()},
	{name: "provider", description: "Only clusters of this provider (aws, gcp, ...)"},
	{name: "source", description: "Only clusters that came to KubeOpera this way", enum: sourceEnum()},
	{name: "namePrefix", description: "Only clusters whose name starts with this"},
	{name: "team", description: "Only clusters of this team (of those the caller may see)"},
}

var kubeconfigQuery = []queryParam{
	{name: "admin", description: "true: the cluster's own kubeconfig (platform admins), instead of one of the caller's through the proxy", enum: []any{"true", "false"}},
	{name: "credential", description: "The credential of the caller's kubeconfig: token (default) embeds a short-lived token; exec runs `kubeopera cluster-token --server <this server> --cluster <id>`, which gets one from the CLI's login whenever kubectl needs it. Not used with admin=true", enum: []any{"token", "exec"}},
}

var cliLoginQuery = []queryParam{
	{name: "redirect_uri", description: "Where the CLI listens: http://127.0.0.1:PORT/... or http://[::1]:PORT/... (required)"},
	{name: "code_challenge", description: "The unpadded base64url SHA-256 of the verifier the CLI keeps (S256; required)"},
	{name: "state", description: "16 to 256 random characters the loopback redirect carries back (required)"},
}

var auditQuery = []queryParam{
	{name: "actor", description: "Only events of this token or user name"},
	{name: "target", description: "Only events on this ID"},
	{name: "limit", description: "Page size (1 to 500, default 50)", integer: true},
	{name: "before", description: "The next value of the previous page"},
	{name: "since", description: "Only events at or after this time (RFC 3339, e.g. 2026-12-07T18:00:00Z)"},
	{name: "until", description: "Only events before this time (RFC 3339)"},
}

// opDocs documents every route, by "METHOD path" as in the route table
// (a test checks that each route has one and each one a route).
var opDocs = map[string]opDoc{
	"GET /healthz":      {id: "getLiveness", tag: "system"},
	"GET /readyz":       {id: "getReadiness", tag: "system"},
	"GET /metrics":      {id: "getMetrics", tag: "system"},
	"GET /openapi.json": {id: "getOpenAPIDocument", tag: "system"},

	"GET /api/v1/setup":        {id: "getSetupStatus", tag: "setup"},
	"POST /api/v1/setup/admin": {id: "createFirstAdmin", tag: "setup", errors: []int{403, 409}},

	"POST /api/v1/session":          {id: "signIn", tag: "session", errors: []int{401, 403, 429}},
	"GET /api/v1/session":           {id: "getSession", tag: "session"},
	"POST /api/v1/session/tokens":   {id: "exchangePasswordForToken", tag: "session", errors: []int{401, 403, 429}},
	"DELETE /api/v1/session":        {id: "signOut", tag: "session"},
	"POST /api/v1/session/password": {id: "changeOwnPassword", tag: "session", errors: []int{401, 429}},

	"GET /api/v1/auth/methods":         {id: "getSignInMethods", tag: "session"},
	"GET /api/v1/auth/oidc/login":      {id: "startSingleSignOn", tag: "session", errors: []int{404, 502}},
	"GET /api/v1/auth/oidc/callback":   {id: "finishSingleSignOn", tag: "session", errors: []int{404}},
	"GET /api/v1/auth/oidc/cli/login":  {id: "startCLISingleSignOn", tag: "session", errors: []int{400, 404, 502}, query: cliLoginQuery},
	"POST /api/v1/auth/oidc/cli/token": {id: "exchangeCLISignInCode", tag: "session", errors: []int{400, 403}},

	"GET /api/v1/clusters":                {id: "listClusters", tag: "clusters", errors: []int{400}, query: clusterQuery},
	"GET /api/v1/clusters/:id":            {id: "getCluster", tag: "clusters", errors: []int{404}},
	"GET /api/v1/clusters/:id/kubeconfig": {id: "getClusterKubeconfig", tag: "clusters", errors: []int{400, 403, 404, 409, 502}, query: kubeconfigQuery},
	"GET /api/v1/clusters/:id/health":     {id: "getClusterHealth", tag: "clusters", errors: []int{404, 409, 502}},
	"GET /api/v1/federation/overview":     {id: "getFederationOverview", tag: "federation", errors: []int{502}},
	"DELETE /api/v1/clusters/:id": {id: "disconnectCluster", tag: "clusters", also: []int{204},
		errors: []int{404, 409, 502}},
	"PATCH /api/v1/clusters/:id":                 {id: "updateCluster", tag: "clusters", errors: []int{404, 409, 422, 502}},
	"POST /api/v1/clusters/:id/teardown":         {id: "teardownCluster", tag: "clusters", errors: []int{404, 409, 502}},
	"POST /api/v1/clusters/:id/retry":            {id: "retryCluster", tag: "clusters", errors: []int{404, 409, 502}},
	"POST /api/v1/clusters/connect":              {id: "connectCluster", tag: "clusters", errors: []int{409, 502}},
	"POST /api/v1/clusters/provision":            {id: "provisionCluster", tag: "clusters", errors: []int{409, 422, 502}},
	"POST /api/v1/clusters/register-self":        {id: "registerSelf", tag: "clusters", also: []int{200}, errors: []int{409, 502}},
	"GET /api/v1/providers":                      {id: "listProviders", tag: "providers"},
	"POST /api/v1/providers/:name/estimate":      {id: "estimateCost", tag: "providers", errors: []int{404, 409}},
	"GET /api/v1/credentials":                    {id: "listCredentials", tag: "credentials"},
	"POST /api/v1/credentials":                   {id: "createCredential", tag: "credentials", errors: []int{409}},
	"GET /api/v1/credentials/:id":                {id: "getCredential", tag: "credentials", errors: []int{404}},
	"PATCH /api/v1/credentials/:id":              {id: "updateCredential", tag: "credentials", errors: []int{404, 409}},
	"DELETE /api/v1/credentials/:id":             {id: "deleteCredential", tag: "credentials", errors: []int{404, 409}},
	"GET /api/v1/tokens":                         {id: "listTokens", tag: "tokens"},
	"POST /api/v1/tokens":                        {id: "createToken", tag: "tokens"},
	"DELETE /api/v1/tokens/:id":                  {id: "revokeToken", tag: "tokens", errors: []int{404}},
	"GET /api/v1/users":                          {id: "listUsers", tag: "users"},
	"POST /api/v1/users":                         {id: "createUser", tag: "users", errors: []int{409}},
	"DELETE /api/v1/users/:id":                   {id: "deleteUser", tag: "users", errors: []int{404, 409}},
	"POST /api/v1/users/:id/disable":             {id: "disableUser", tag: "users", errors: []int{404, 409}},
	"POST /api/v1/users/:id/enable":              {id: "enableUser", tag: "users", errors: []int{404}},
	"POST /api/v1/users/:id/password-reset":      {id: "resetUserPassword", tag: "users", errors: []int{404}},
	"DELETE /api/v1/users/:id/sessions":          {id: "endUserSessions", tag: "users", errors: []int{404}},
	"GET /api/v1/users/:id/tokens":               {id: "listUserTokens", tag: "users", errors: []int{404}},
	"DELETE /api/v1/users/:id/tokens/:tokenId":   {id: "revokeUserToken", tag: "users", errors: []int{404}},
	"GET /api/v1/teams":                          {id: "listTeams", tag: "teams"},
	"POST /api/v1/teams":                         {id: "createTeam", tag: "teams", errors: []int{409}},
	"DELETE /api/v1/teams/:name":                 {id: "deleteTeam", tag: "teams", errors: []int{404, 409}},
	"GET /api/v1/teams/:name/members":            {id: "listTeamMembers", tag: "teams", errors: []int{404}},
	"PUT /api/v1/teams/:name/members/:userId":    {id: "setTeamMember", tag: "teams", errors: []int{404}},
	"DELETE /api/v1/teams/:name/members/:userId": {id: "removeTeamMember", tag: "teams", errors: []int{404}},
	"GET /api/v1/audit":                          {id: "listAuditEvents", tag: "audit", errors: []int{400}, query: auditQuery},
}

func routeKey(r route) string { return r.method + " " + r.path }

// noDatabase are the routes that never answer 503 for the database: they
// never read it, or (the SSO callback, a browser navigation) land on the
// sign-in page with the reason instead; every other one does while it is
// down.
var noDatabase = []string{"GET /healthz", "GET /metrics", "GET /openapi.json", "GET /api/v1/auth/methods",
	"GET /api/v1/auth/oidc/login", "GET /api/v1/auth/oidc/callback", "GET /api/v1/auth/oidc/cli/login"}

// statusesOf is every status r can answer, sorted: its successes, what its
// handler returns, and what the layers in front of it add: authorize (401
// without valid credentials; 403 for a role below the route's, and for a
// session's mutating request without its CSRF token), a JSON body (400
// when it is not JSON for the request, 415 when it is not JSON at all) and
// the database (503 while it is down).
// serverAnswers are the statuses any request may get whatever its route:
// a malformed request (400), a body or headers too large (413, 431), which
// the HTTP server answers before any route runs, and an unexpected error
// (500).
var serverAnswers = []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusRequestHeaderFieldsTooLarge,
	http.StatusInternalServerError}

func statusesOf(r route) []int {
	d := opDocs[routeKey(r)]
	out := append([]int{r.status}, d.also...)
	out = append(out, d.errors...)
	if r.role != Anonymous {
		out = append(out, http.StatusUnauthorized)
		if r.role != lowestRole(r) || mutating(r.method) {
			out = append(out, http.StatusForbidden)
		}
	}
	if r.request != "" {
		out = append(out, http.StatusUnsupportedMediaType)
	}
	out = append(out, serverAnswers...)
	if !slices.Contains(noDatabase, routeKey(r)) {
		out = append(out, http.StatusServiceUnavailable)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// operationDescription says who may call r and how.
func operationDescription(r route) string {
	if r.role == Anonymous {
		return "Anonymous."
	}
	how := "a bearer token, or the session cookie"
	if mutating(r.method) {
		how += " with the X-CSRF-Token header"
	}
	switch {
	case scopeOf(r.path) == clusterScope:
		return "Needs the " + string(r.role) + " role on the cluster's team (a global viewer reads every team; a platform-admin may do all), by " + how + ". A cluster the caller may not see is answered 404, as one that does not exist."
	case scopeOf(r.path) == credentialScope:
		return "Needs the " + string(r.role) + " role on the credential's team (or platform-admin), by " + how + ". A credential the caller may not see is answered 404."
	case r.role == Operator || r.role == Admin:
		return "Needs the " + string(r.role) + " role on the team the request names (or platform-admin), by " + how + "."
	}
	return "Needs the " + string(r.role) + " role, by " + how + "."
}

// lowestRole is the least a caller of r's scope can have once
// authenticated: a route that needs no more never answers 403 (a cluster
// the caller may not see is a 404).
func lowestRole(r route) Role {
	if scopeOf(r.path) == globalScope {
		return Member
	}
	return Viewer
}

func (q queryParam) schema() map[string]any {
	if q.integer {
		return map[string]any{"type": "integer", "minimum": 1, "maximum": 500}
	}
	s := map[string]any{"type": "string"}
	if q.enum != nil {
		s["enum"] = q.enum
	}
	return s
}

func parametersOf(r route) []any {
	var out []any
	for _, m := range pathParamRE.FindAllStringSubmatch(r.path, -1) {
		out = append(out, map[string]any{"name": m[1], "in": "path", "required": true,
			"description": "The ID of the " + idOf(r.path, m[0]), "schema": map[string]string{"type": "string"}})
	}
	for _, q := range opDocs[routeKey(r)].query {
		out = append(out, map[string]any{"name": q.name, "in": "query", "required": false,
			"description": q.description, "schema": q.schema()})
	}
	return out
}

// idOf names what the parameter param (":id") in path identifies: the
// segment before it, singular.
func idOf(path, param string) string {
	before, _, _ := strings.Cut(path, "/"+param)
	return strings.TrimSuffix(before[strings.LastIndex(before, "/")+1:], "s")
}
