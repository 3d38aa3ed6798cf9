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
	// openapi.go ("" when none).
	status            int
	request, response string
	handler           func(*server) fiber.Handler
}

var routes = []route{
	{http.MethodGet, "/healthz", Anonymous, "Liveness: the process serves requests", 200, "", "Health",
		func(s *server) fiber.Handler { return s.healthz }},
	{http.MethodGet, "/readyz", Anonymous, "Readiness: the database answers", 200, "", "Health",
		func(s *server) fiber.Handler { return s.readyz }},
	{http.MethodGet, "/metrics", Anonymous, "Prometheus metrics", 200, "", "",
		func(s *server) fiber.Handler { return s.metrics.handler() }},
	{http.MethodGet, "/openapi.json", Anonymous, "This API as OpenAPI 3", 200, "", "",
		func(s *server) fiber.Handler { return serveOpenAPI }},

	{http.MethodGet, "/api/v1/clusters", Viewer, "List clusters, with live phases from their HostClusters", 200, "", "ClusterList",
		func(s *server) fiber.Handler { return s.listClusters }},
	{http.MethodGet, "/api/v1/clusters/:id", Viewer, "Get one cluster", 200, "", "Cluster",
		func(s *server) fiber.Handler { return s.getCluster }},
	{http.MethodGet, "/api/v1/clusters/:id/health", Viewer, "Health score of one cluster, with the findings that produced it", 200, "", "HealthScore",
		func(s *server) fiber.Handler { return s.clusterHealth }},
	{http.MethodGet, "/api/v1/federation/overview", Viewer, "All reachable clusters assessed concurrently: health, nodes, usage, monthly cost", 200, "", "Overview",
		func(s *server) fiber.Handler { return s.overview }},
	{http.MethodDelete, "/api/v1/clusters/:id", PlatformAdmin, "Disconnect a cluster (its HostCluster finalizer cleans up)", 204, "", "",
		func(s *server) fiber.Handler { return s.deleteCluster }},
	{http.MethodPost, "/api/v1/clusters/connect", PlatformAdmin, "Connect an existing cluster by kubeconfig", 202, "ConnectRequest", "Cluster",
		func(s *server) fiber.Handler { return s.connectCluster }},
	{http.MethodPost, "/api/v1/clusters/provision", PlatformAdmin, "Provision a new cluster through a provider plugin", 202, "ProvisionRequest", "Cluster",
		func(s *server) fiber.Handler { return s.provisionCluster }},
	{http.MethodPost, "/api/v1/clusters/register-self", PlatformAdmin, "Register the cluster this server runs in as the host", 201, "RegisterSelfRequest", "Cluster",
		func(s *server) fiber.Handler { return s.registerSelf }},

	{http.MethodGet, "/api/v1/providers", Viewer, "List provider plugins with availability and input schema", 200, "", "ProviderList",
		func(s *server) fiber.Handler { return s.listProviders }},

	{http.MethodGet, "/api/v1/credentials", PlatformAdmin, "List cloud credentials (label, kind, last 4 characters)", 200, "", "CredentialList",
		func(s *server) fiber.Handler { return s.listCredentials }},
	{http.MethodPost, "/api/v1/credentials", PlatformAdmin, "Store a cloud credential, encrypted", 201, "CredentialRequest", "Credential",
		func(s *server) fiber.Handler { return s.createCredential }},
	{http.MethodGet, "/api/v1/credentials/:id", PlatformAdmin, "Get a cloud credential's metadata", 200, "", "Credential",
		func(s *server) fiber.Handler { return s.getCredential }},
	{http.MethodPatch, "/api/v1/credentials/:id", PlatformAdmin, "Change a credential's label or secret fields (re-sealed with the current key)", 200, "CredentialRequest", "Credential",
		func(s *server) fiber.Handler { return s.updateCredential }},
	{http.MethodDelete, "/api/v1/credentials/:id", PlatformAdmin, "Delete a cloud credential no provisioning cluster uses", 204, "", "",
		func(s *server) fiber.Handler { return s.deleteCredential }},
}
