package api

import (
	"github.com/gofiber/fiber/v2"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/ochestra-tech/kubeopera/server/k8sproxy"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// The kinds of credential a user's kubeconfig may carry (?credential=).
const (
	// credentialToken embeds a short-lived token (the default).
	credentialToken = "token"
	// credentialExec runs `kubeopera cluster-token`, which gets such a
	// token from the CLI's login whenever client-go needs one, so the
	// file holds no secret and never goes stale while the login lasts.
	credentialExec = "exec"
)

// execAPIVersion is the ExecCredential version the entry asks for and
// `kubeopera cluster-token` answers in.
const execAPIVersion = "client.authentication.k8s.io/v1"

// credentialKind checks ?credential= ("" is the default, a token).
func credentialKind(c *fiber.Ctx) (string, error) {
	switch v := c.Query("credential"); v {
	case "", credentialToken:
		return credentialToken, nil
	case credentialExec:
		return v, nil
	}
	return "", invalid(FieldProblem{"credential", `must be "token" or "exec"`})
}

// execKubeconfig answers with a kubeconfig for row whose user is an exec
// entry: `kubeopera cluster-token --server <this server> --cluster <id>`.
// No token is issued here: each run of the entry gets its own.
func (s *server) execKubeconfig(c *fiber.Ctx, row *store.Cluster) error {
	base := c.Protocol() + "://" + c.Hostname()
	b, err := execProxyKubeconfig(row.Name, base+k8sproxy.PathPrefix+row.ID, s.proxyCA, base, row.ID)
	if err != nil {
		return err
	}
	s.log.Info("cluster kubeconfig issued", "cluster", row.Name, "credential", credentialExec, "by", who(c).Name,
		"request_id", requestID(c))
	return c.JSON(clusterKubeconfig{Kubeconfig: string(b)})
}

// execProxyKubeconfig is a kubeconfig with one context named name that
// reaches server, trusting ca, with the credential `kubeopera
// cluster-token` prints for the cluster clusterID of the KubeOpera server
// at api.
func execProxyKubeconfig(name, server string, ca []byte, api, clusterID string) ([]byte, error) {
	out := clientcmdapi.NewConfig()
	out.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	out.AuthInfos[name] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
		APIVersion:      execAPIVersion,
		Command:         "kubeopera",
		Args:            []string{"cluster-token", "--server", api, "--cluster", clusterID},
		InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
		InstallHint: "kubectl runs 'kubeopera cluster-token' for this cluster's credential: put the kubeopera CLI on your PATH " +
			"and run 'kubeopera login " + api + "'",
	}}
	out.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	out.CurrentContext = name
	return clientcmd.Write(*out)
}
