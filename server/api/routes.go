package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"
)

// route is one endpoint: the table below drives routing, authorization and
// the OpenAPI document, so the three cannot disagree.
type route struct {
	method, path string
	role         Role
	summary      string
	// status is the success status; request and response name schemas in
	// openapi.go ("" when none; a request ending in "?" may be left out).
	status            int
	request, response string
	handler           func(*server, *fiber.Ctx) error
}

var routes = []route{
	{http.MethodGet, "/healthz", Anonymous, "Liveness: the process serves requests", 200, "", "Health",
		(*server).healthz},
	{http.MethodGet, "/readyz", Anonymous, "Readiness: the database answers", 200, "", "Health",
		(*server).readyz},
	{http.MethodGet, "/metrics", Viewer, "Prometheus metrics (anonymous when the server sets --public-metrics)", 200, "", "",
		(*server).serveMetrics},
	{http.MethodGet, "/openapi.json", Anonymous, "This API as OpenAPI 3", 200, "", "",
		(*server).serveOpenAPI},

	{http.MethodGet, "/api/v1/setup", Anonymous, "Whether the first administrator exists yet", 200, "", "SetupStatus",
		(*server).setupStatus},
	{http.MethodPost, "/api/v1/setup/admin", Anonymous, "Create the first administrator (a super-admin); works only while there is none", 201, "SetupAdminRequest", "SetupAdmin",
		(*server).setupAdmin},

	{http.MethodPost, "/api/v1/session", Anonymous, "Sign in with username and password: sets the HttpOnly session cookie", 201, "SignInRequest", "Session",
		(*server).signIn},
	{http.MethodPost, "/api/v1/session/tokens", Anonymous, "Exchange a username and password for an API token of the user's role that expires (the CLI's login); throttled as the sign-in is", 201, "TokenExchangeRequest", "IssuedToken",
		(*server).exchangeToken},
	{http.MethodPost, "/api/v1/session/password", Anonymous, "Change your password with the current one (after a reset, the generated one); throttled as the sign-in is", 204, "PasswordChangeRequest", "",
		(*server).changePassword},
	{http.MethodGet, "/api/v1/session", Member, "Who is signed in, and the CSRF token the session's mutating requests send in X-CSRF-Token", 200, "", "Session",
		(*server).currentSession},
	{http.MethodDelete, "/api/v1/session", Member, "Sign out: revoke the session and clear its cookie; with a bearer token, revoke that token (any role may)", 204, "", "",
		(*server).signOut},

	{http.MethodGet, "/api/v1/auth/methods", Anonymous, "How one may sign in: password, and single sign-on with its display name when configured", 200, "", "SignInMethods",
		(*server).signInMethods},
	{http.MethodGet, "/api/v1/auth/oidc/login", Anonymous, "Start single sign-on: 303 to the identity provider (a browser navigation; ?next= is the dashboard path to land on)", 303, "", "",
		(*server).oidcLogin},
	{http.MethodGet, "/api/v1/auth/oidc/callback", Anonymous, "Where the identity provider sends the browser back: sets the session cookie and answers 303 to the dashboard, or 303 to /signin?sso_error= with the reason", 303, "", "",
		(*server).oidcCallback},
	{http.MethodGet, "/api/v1/auth/oidc/cli/login", Anonymous, "Start `kubeopera login --sso`: 303 to the identity provider; the sign-in then ends with a 303 to the CLI's loopback redirect_uri with state and a one-time code (or error). Only http://127.0.0.1:PORT and http://[::1]:PORT redirects are accepted", 303, "", "",
		(*server).oidcCLILogin},
	{http.MethodPost, "/api/v1/auth/oidc/cli/token", Anonymous, "Exchange the one-time code of `kubeopera login --sso` and the PKCE verifier of its challenge for a login token of the user's role; a code works once, within a minute", 201, "CLITokenRequest", "IssuedToken",
		(*server).oidcCLIToken},

	{http.MethodGet, "/api/v1/clusters", Member, "List clusters, with live phases from their HostClusters", 200, "", "ClusterList",
		(*server).listClusters},
	{http.MethodGet, "/api/v1/clusters/:id", Viewer, "Get one cluster with what its page shows: its nodes (read live through its kubeconfig), its HostCluster's conditions and newest events, the Terraform Job that provisioned it, and what a disconnect would do now", 200, "", "ClusterDetail",
		(*server).getCluster},
	{http.MethodGet, "/api/v1/clusters/:id/kubeconfig", Viewer, "A kubeconfig for the caller that reaches the cluster through KubeOpera's proxy with a short-lived token of their own (hours, ending with their session or token), or with ?credential=exec one that runs `kubeopera cluster-token` for it; ?admin=true: the kubeconfig KubeOpera itself reaches the cluster with, for platform admins. Either read is audited", 200, "", "ClusterKubeconfig",
		(*server).clusterKubeconfigOf},
	{http.MethodGet, "/api/v1/clusters/:id/health", Viewer, "Health score of one cluster, with the findings that produced it", 200, "", "HealthScore",
		(*server).clusterHealth},
	{http.MethodGet, "/api/v1/federation/overview", Member, "All reachable clusters assessed concurrently: health, nodes, usage, monthly cost", 200, "", "Overview",
		(*server).overview},
	{http.MethodDelete, "/api/v1/clusters/:id", Admin, "Disconnect a cluster: 202 while its HostCluster finalizer cleans up (204 when it has none); 409 while a provisioned cluster is still being created", 202, "", "LifecycleResponse",
		(*server).deleteCluster},
	{http.MethodPatch, "/api/v1/clusters/:id", Operator, "Change a provisioned cluster's node count or Kubernetes version through its plugin: 409 when the plugin cannot, 422 for a bad value", 202, "UpdateClusterRequest", "LifecycleResponse",
		(*server).updateCluster},
	{http.MethodPost, "/api/v1/clusters/:id/teardown", Admin, "Tear down a provisioned cluster: its plugin destroys its cloud resources, then it is removed; the body repeats its name", 202, "TeardownRequest", "LifecycleResponse",
		(*server).teardownCluster},
	{http.MethodPost, "/api/v1/clusters/:id/retry", Operator, "Try a Failed cluster again from the step that failed (a provisioned cluster's plugin resumes for the same cluster): 409 unless it is Failed", 202, "", "LifecycleResponse",
		(*server).retryCluster},
	{http.MethodPost, "/api/v1/clusters/connect", Admin, "Connect an existing cluster by kubeconfig", 202, "ConnectRequest", "Cluster",
		(*server).connectCluster},
	{http.MethodPost, "/api/v1/clusters/provision", Admin, "Provision a new cluster through a provider plugin", 202, "ProvisionRequest", "Cluster",
		(*server).provisionCluster},
	{http.MethodPost, "/api/v1/clusters/register-self", PlatformAdmin, "Register the cluster this server runs in as the host", 201, "RegisterSelfRequest?", "Cluster",
		(*server).registerSelf},

	{http.MethodGet, "/api/v1/providers", Member, "List provider plugins with availability and input schema", 200, "", "ProviderList",
		(*server).listProviders},
	{http.MethodPost, "/api/v1/providers/:name/estimate", Member, "What a cluster of these inputs would cost by the hour, from the plugin's own price table, before anything is created: 409 when the plugin gives no estimate, 400 naming an input its table cannot price", 200, "EstimateRequest", "Estimate",
		(*server).estimateCost},

	{http.MethodGet, "/api/v1/credentials", Member, "List cloud credentials (label, kind, last 4 characters)", 200, "", "CredentialList",
		(*server).listCredentials},
	{http.MethodPost, "/api/v1/credentials", Admin, "Store a cloud credential, encrypted", 201, "CredentialRequest", "Credential",
		(*server).createCredential},
	{http.MethodGet, "/api/v1/credentials/:id", Admin, "Get a cloud credential's metadata", 200, "", "Credential",
		(*server).getCredential},
	{http.MethodPatch, "/api/v1/credentials/:id", Admin, "Change a credential's label or secret fields (re-sealed with the current key); what the body leaves out is kept", 200, "CredentialUpdate", "Credential",
		(*server).updateCredential},
	{http.MethodDelete, "/api/v1/credentials/:id", Admin, "Delete a cloud credential no provisioning cluster uses", 204, "", "",
		(*server).deleteCredential},

	{http.MethodGet, "/api/v1/tokens", PlatformAdmin, "List API tokens (never the tokens themselves): role, last use, expiry, revocation", 200, "", "TokenList",
		(*server).listTokens},
	{http.MethodPost, "/api/v1/tokens", PlatformAdmin, "Create an API token; the answer is the only one that carries it", 201, "TokenCreateRequest", "IssuedToken",
		(*server).createToken},
	{http.MethodDelete, "/api/v1/tokens/:id", PlatformAdmin, "Revoke an API token by ID; it stops working at once", 204, "", "",
		(*server).revokeToken},

	{http.MethodGet, "/api/v1/users", PlatformAdmin, "List users: role, whether disabled, whether they must choose a new password", 200, "", "UserList",
		(*server).listUsers},
	{http.MethodPost, "/api/v1/users", PlatformAdmin, "Create a user, who chooses a new password at the first sign-in; a password left out is generated and answered once", 201, "UserCreateRequest", "CreatedUser",
		(*server).createUser},
	{http.MethodDelete, "/api/v1/users/:id", PlatformAdmin, "Delete a user: their sessions end and tokens are revoked at once; not the last platform admin, and the super-admin only by themselves", 204, "", "",
		(*server).deleteUser},
	{http.MethodPost, "/api/v1/users/:id/disable", PlatformAdmin, "Disable a user: their sessions end and tokens are revoked at once; not the last platform admin, and the super-admin only by themselves", 200, "", "User",
		(*server).disableUser},
	{http.MethodPost, "/api/v1/users/:id/enable", PlatformAdmin, "Enable a disabled user (tokens revoked by the disable stay revoked)", 200, "", "User",
		(*server).enableUser},
	{http.MethodPost, "/api/v1/users/:id/password-reset", PlatformAdmin, "Reset a user's password to a generated one, answered once, which they must replace at the next sign-in; their sessions and tokens end", 200, "", "CreatedUser",
		(*server).resetPassword},
	{http.MethodDelete, "/api/v1/users/:id/sessions", PlatformAdmin, "End every session of a user and revoke their login tokens", 200, "", "AccessEnded",
		(*server).endUserSessions},
	{http.MethodGet, "/api/v1/users/:id/tokens", PlatformAdmin, "List a user's login tokens (never the tokens themselves)", 200, "", "TokenList",
		(*server).listUserTokens},
	{http.MethodDelete, "/api/v1/users/:id/tokens/:tokenId", PlatformAdmin, "Revoke one login token of a user, by ID", 204, "", "",
		(*server).revokeUserToken},

	{http.MethodGet, "/api/v1/teams", Member, "List teams: every team for platform admins and global viewers, else the caller's own; each with what it owns and the caller's role there", 200, "", "TeamList",
		(*server).listTeams},
	{http.MethodPost, "/api/v1/teams", PlatformAdmin, "Create a team, which can then own clusters and credentials", 201, "TeamRequest", "Team",
		(*server).createTeam},
	{http.MethodDelete, "/api/v1/teams/:name", PlatformAdmin, "Delete a team and its memberships: not the default team, nor one that still owns clusters or credentials (409)", 204, "", "",
		(*server).deleteTeam},
	{http.MethodGet, "/api/v1/teams/:name/members", PlatformAdmin, "List a team's members with their roles, and where each role came from (local, or the identity provider's groups)", 200, "", "MemberList",
		(*server).listMembers},
	{http.MethodPut, "/api/v1/teams/:name/members/:userId", PlatformAdmin, "Give a user a role on a team (viewer, operator, admin), replacing the one they had; it applies to their next request", 200, "MemberRequest", "Member",
		(*server).setMember},
	{http.MethodDelete, "/api/v1/teams/:name/members/:userId", PlatformAdmin, "Remove a user from a team: their sessions and proxied watches lose its clusters at once", 204, "", "",
		(*server).removeMember},

	{http.MethodGet, "/api/v1/audit", PlatformAdmin, "Audit log of mutating requests, newest first; ?actor=, ?target=, ?since=, ?until= (RFC 3339), ?limit= (1-500), ?before= (next page)", 200, "", "AuditPage",
		(*server).listAudit},
}
