package api

import (
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/gofiber/fiber/v2"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/ochestra-tech/kubeopera/server/federation"
)

// clusterKubeconfig is GET /clusters/{id}/kubeconfig.
type clusterKubeconfig struct {
	// Kubeconfig is a kubeconfig file (YAML) for the cluster, with its
	// credential embedded.
	Kubeconfig string `json:"kubeconfig"`
	// ExpiresAt is when the kubeconfig's credential stops working; absent
	// for the admin kubeconfig (?admin=true), which is the cluster's own.
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
}

// userKubeconfigTTL bounds the credential of a user's kubeconfig; the
// caller's own session or token may end it sooner.
const userKubeconfigTTL = 8 * time.Hour

// clusterKubeconfigOf is GET /clusters/{id}/kubeconfig: for anyone who may
// see the cluster, a kubeconfig that reaches it through the server's proxy
// with a short-lived token of their own; with ?admin=true, for a platform
// admin, the kubeconfig KubeOpera itself reaches the cluster with. Either
// read is audited like a change (auditedReads).
func (s *server) clusterKubeconfigOf(c *fiber.Ctx) error {
	admin := c.Query("admin")
	if admin != "" && admin != "true" && admin != "false" {
		return invalid(FieldProblem{"admin", `must be "true" or "false"`})
	}
	if admin == "true" && !who(c).Role.AtLeast(PlatformAdmin) {
		return problem(http.StatusForbidden, "the cluster's own kubeconfig (?admin=true) needs the %s role; leave admin out for your own", PlatformAdmin)
	}
	row, err := s.store.GetCluster(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	if s.fleet == nil {
		return problem(http.StatusServiceUnavailable, "cluster %q cannot be reached: no management cluster or self-registration is configured", row.Name)
	}
	t, ok, err := s.fleet.Target(c.UserContext(), *row)
	if err != nil {
		return problem(http.StatusBadGateway, "could not read how to reach cluster %q: %s", row.Name, federation.Reason(err))
	}
	if !ok {
		return problem(http.StatusConflict, "cluster %q has no usable kubeconfig yet (status %s)", row.Name, row.Status)
	}
	if admin != "true" {
		return s.userKubeconfig(c, row)
	}
	b, err := kubeconfigFile(row.Name, t.Config)
	if err != nil {
		return err
	}
	return c.JSON(clusterKubeconfig{Kubeconfig: string(b)})
}

// kubeconfigFile writes cfg as a kubeconfig with one context named name,
// files it refers to read into the file.
func kubeconfigFile(name string, cfg *rest.Config) ([]byte, error) {
	read := func(data []byte, file string) ([]byte, error) {
		if len(data) > 0 || file == "" {
			return data, nil
		}
		return os.ReadFile(file)
	}
	ca, err := read(cfg.CAData, cfg.CAFile)
	if err != nil {
		return nil, fmt.Errorf("read the cluster's CA: %w", err)
	}
	cert, err := read(cfg.CertData, cfg.CertFile)
	if err != nil {
		return nil, fmt.Errorf("read the client certificate: %w", err)
	}
	key, err := read(cfg.KeyData, cfg.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("read the client key: %w", err)
	}
	token := cfg.BearerToken
	if token == "" && cfg.BearerTokenFile != "" {
		b, err := os.ReadFile(cfg.BearerTokenFile)
		if err != nil {
			return nil, fmt.Errorf("read the bearer token: %w", err)
		}
		token = string(b)
	}
	out := clientcmdapi.NewConfig()
	out.Clusters[name] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: ca, TLSServerName: cfg.ServerName,
		InsecureSkipTLSVerify: cfg.Insecure}
	out.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key, Token: token,
		Username: cfg.Username, Password: cfg.Password}
	out.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	out.CurrentContext = name
	return clientcmd.Write(*out)
}
