package api

import (
	"time"

	"github.com/gofiber/fiber/v2"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/ochestra-tech/kubeopera/server/k8sproxy"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// userKubeconfig answers with a kubeconfig whose server is this server's
// proxy for row and whose credential is a new API token of the caller's
// role, living userKubeconfigTTL or until the caller's own session or
// token ends, whichever is sooner; with ?credential=exec, one whose user
// runs `kubeopera cluster-token` instead. The cluster's credentials stay here.
func (s *server) userKubeconfig(c *fiber.Ctx, row *store.Cluster) error {
	kind, err := credentialKind(c)
	if err != nil {
		return err
	}
	if kind == credentialExec {
		return s.execKubeconfig(c, row)
	}
	p := who(c)
	now := time.Now().UTC().Truncate(time.Microsecond)
	expires, userID, err := s.callerExpiry(c, now.Add(userKubeconfigTTL))
	if err != nil {
		return err
	}
	token, hash := NewToken()
	// The token belongs to the caller's user (when the caller is one): the
	// proxy acts as that user, and the token stops with the user.
	t := &store.Token{Name: "kubeconfig:" + row.Name + ":" + p.Name, Role: string(p.Role), Hash: hash, ExpiresAt: &expires, UserID: userID}
	if err := s.store.CreateToken(c.UserContext(), t); err != nil {
		return err
	}
	s.log.Info("cluster kubeconfig issued", "cluster", row.Name, "token_id", t.ID, "by", p.Name, "expires_at", expires,
		"request_id", requestID(c))
	server := c.Protocol() + "://" + c.Hostname() + k8sproxy.PathPrefix + row.ID
	b, err := proxyKubeconfig(row.Name, server, s.proxyCA, token)
	if err != nil {
		return err
	}
	return c.JSON(clusterKubeconfig{Kubeconfig: string(b), ExpiresAt: &expires})
}

// callerExpiry is limit, or sooner when the caller's session or token
// ends sooner, and the caller's user ("" for a token an administrator
// issued to a script).
func (s *server) callerExpiry(c *fiber.Ctx, limit time.Time) (time.Time, string, error) {
	if sess, _ := sessionOf(c); sess != nil {
		return earlier(limit, sess.ExpiresAt), sess.UserID, nil
	}
	bearer, ok := bearerToken(c.Get(fiber.HeaderAuthorization))
	if !ok {
		return limit, "", nil
	}
	t, err := s.store.TokenByHash(c.UserContext(), HashToken(bearer))
	if err != nil {
		return time.Time{}, "", err
	}
	if t.ExpiresAt == nil {
		return limit, t.UserID, nil
	}
	return earlier(limit, *t.ExpiresAt), t.UserID, nil
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// proxyKubeconfig is a kubeconfig with one context named name that reaches
// server with token, trusting ca (none: the system's roots).
func proxyKubeconfig(name, server string, ca []byte, token string) ([]byte, error) {
	out := clientcmdapi.NewConfig()
	out.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	out.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: token}
	out.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	out.CurrentContext = name
	return clientcmd.Write(*out)
}
