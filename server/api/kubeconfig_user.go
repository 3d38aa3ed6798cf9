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
	from, err := s.callerCredential(c, now.Add(userKubeconfigTTL))
	if err != nil {
		return err
	}
	expires := from.expires
	token, hash := NewToken()
	// The token belongs to the caller's user (when the caller is one): the
	// proxy acts as that user, and the token stops with the user, and with
	// the session or token it was got with (a logout ends it).
	t := &store.Token{Name: "kubeconfig:" + row.Name + ":" + p.Name, Role: string(p.Role), Hash: hash, ExpiresAt: &expires,
		UserID: from.userID, Parent: from.parent}
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

// credential is what a token issued to the caller inherits from the
// credential the caller came with.
type credential struct {
	// expires is the limit asked for, or sooner when the caller's session
	// or token ends sooner.
	expires time.Time
	// userID is the caller's user ("" for a token an administrator issued
	// to a script).
	userID string
	// parent is the caller's session or token (store.Token.Parent).
	parent string
}

// callerCredential is the caller's credential, with limit as the expiry.
func (s *server) callerCredential(c *fiber.Ctx, limit time.Time) (credential, error) {
	if sess, _ := sessionOf(c); sess != nil {
		return credential{earlier(limit, sess.ExpiresAt), sess.UserID, store.ParentSession(sess.IDHash)}, nil
	}
	bearer, ok := bearerToken(c.Get(fiber.HeaderAuthorization))
	if !ok {
		return credential{expires: limit}, nil
	}
	t, err := s.store.TokenByHash(c.UserContext(), HashToken(bearer))
	if err != nil {
		return credential{}, err
	}
	out := credential{expires: limit, userID: t.UserID, parent: store.ParentToken(t.ID)}
	if t.ExpiresAt != nil {
		out.expires = earlier(limit, *t.ExpiresAt)
	}
	return out, nil
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
