package api

import (
	"fmt"
	"net/http"
	"os"

	"github.com/gofiber/fiber/v2"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/ochestra-tech/kubeopera/server/federation"
)

// clusterKubeconfig is GET /clusters/{id}/kubeconfig.
type clusterKubeconfig struct {
	// Kubeconfig is a kubeconfig file (YAML) for the cluster, with its
	// credentials embedded.
	Kubeconfig string `json:"kubeconfig"`
}

// clusterKubeconfigOf is GET /clusters/{id}/kubeconfig: the kubeconfig
// KubeOpera reaches the cluster with, for an admin. Reading it is audited
// like a change (auditedReads).
func (s *server) clusterKubeconfigOf(c *fiber.Ctx) error {
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
