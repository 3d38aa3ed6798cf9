package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientauthv1 "k8s.io/client-go/pkg/apis/clientauthentication/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
)

// cachedTokenMargin is how long a cached cluster token must still live to
// be handed out again: client-go uses a credential until its expiry, so
// one about to end would only cost a second round.
const cachedTokenMargin = time.Minute

func newClusterTokenCommand() *cobra.Command {
	var server, cluster, contextName string
	cmd := &cobra.Command{
		Use:   "cluster-token --server SERVER --cluster ID",
		Short: "Print a short-lived credential for a cluster as an ExecCredential: kubectl runs this from a kubeconfig's exec entry",
		Long: "Print, as a client.authentication.k8s.io/v1 ExecCredential, a short-lived token of your own for the cluster ID\n" +
			"behind the KubeOpera server SERVER, got with the token of your 'kubeopera login' to SERVER. The kubeconfig of\n" +
			"'kubeopera clusters kubeconfig NAME --exec' runs it; client-go reruns it when the token's expiry\n" +
			"(status.expirationTimestamp) passes. Tokens are cached, mode 0600, beside the configuration file until a\n" +
			"minute before they expire.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cred, err := clusterToken(cmd.Context(), server, cluster, contextName, time.Now())
			if err != nil {
				return err
			}
			return json.NewEncoder(cmd.OutOrStdout()).Encode(cred)
		},
	}
	f := cmd.Flags()
	f.StringVar(&server, "server", "", "the KubeOpera server's URL, as logged in to (required)")
	f.StringVar(&cluster, "cluster", "", "the cluster's ID (required)")
	f.StringVar(&contextName, "context", "", "the login context to use (default: the current one if it is for SERVER, else the first that is)")
	_ = cmd.MarkFlagRequired("server")
	_ = cmd.MarkFlagRequired("cluster")
	return cmd
}

// clusterToken returns the ExecCredential for cluster: a cached token
// that lives past now+cachedTokenMargin, else a new one from the server.
func clusterToken(ctx context.Context, server, cluster, contextName string, now time.Time) (*clientauthv1.ExecCredential, error) {
	server = strings.TrimRight(server, "/")
	cfg, path, err := loadConfig()
	if err != nil {
		return nil, err
	}
	login, err := loginFor(cfg, server, contextName, now)
	if err != nil {
		return nil, err
	}
	cache := filepath.Join(filepath.Dir(path), "cache", "cluster-tokens", cacheKey(server, cluster, login.Token)+".json")
	if cred, ok := readCachedToken(cache, now); ok {
		return cred, nil
	}
	cl, err := newAPIClient(server, login.Token)
	if err != nil {
		return nil, err
	}
	kind := apiclient.GetClusterKubeconfigParamsCredentialToken
	resp, err := cl.GetClusterKubeconfigWithResponse(ctx, cluster, &apiclient.GetClusterKubeconfigParams{Credential: &kind})
	if err := expect(resp, err, http.StatusOK); err != nil {
		return nil, fmt.Errorf("get a token for cluster %s: %w", cluster, err)
	}
	token, err := kubeconfigToken([]byte(resp.JSON200.Kubeconfig))
	if err != nil {
		return nil, err
	}
	cred := execCredential(token, resp.JSON200.ExpiresAt)
	if exp := resp.JSON200.ExpiresAt; exp != nil && now.Add(cachedTokenMargin).Before(*exp) {
		// A cache that cannot be written costs a token per kubectl run,
		// not the credential.
		_ = writeCachedToken(cache, cred, now)
	}
	return cred, nil
}

// loginFor is the login context for server: the one named, else the
// current one when it is for server, else the first for server.
func loginFor(cfg *cliConfig, server, name string, now time.Time) (*cliContext, error) {
	var login *cliContext
	if name != "" {
		c, err := cfg.context(name)
		if err != nil {
			return nil, err
		}
		if c.Server != server {
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("context %q is a login to %s, not %s", name, c.Server, server)}
		}
		login = c
	} else {
		for i := range cfg.Contexts {
			c := &cfg.Contexts[i]
			if c.Server == server && (login == nil || c.Name == cfg.CurrentContext) {
				login = c
			}
		}
	}
	if login == nil {
		return nil, &exitError{code: exitAuth, err: fmt.Errorf("not logged in to %s: run 'kubeopera login %s'", server, server)}
	}
	if login.ExpiresAt != nil && !now.Before(*login.ExpiresAt) {
		return nil, &exitError{code: exitAuth, err: fmt.Errorf("the login to %s (context %q) expired at %s: run 'kubeopera login %s' again",
			login.Server, login.Name, login.ExpiresAt.Local().Format(time.RFC3339), login.Server)}
	}
	return login, nil
}

// cacheKey names a cached token by what it was got for and with: a new
// login never reuses the token of an old one.
func cacheKey(server, cluster, loginToken string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + cluster + "\x00" + loginToken))
	return hex.EncodeToString(sum[:16])
}

// kubeconfigToken is the token of the current context's user of a
// kubeconfig the server answered.
func kubeconfigToken(b []byte) (string, error) {
	kc, err := clientcmd.Load(b)
	if err != nil {
		return "", fmt.Errorf("read the server's kubeconfig: %w", err)
	}
	if c, ok := kc.Contexts[kc.CurrentContext]; ok {
		if u, ok := kc.AuthInfos[c.AuthInfo]; ok && u.Token != "" {
			return u.Token, nil
		}
	}
	return "", errors.New("the server's kubeconfig carries no token: is the server older than this CLI?")
}

func execCredential(token string, expires *time.Time) *clientauthv1.ExecCredential {
	cred := &clientauthv1.ExecCredential{
		TypeMeta: metav1.TypeMeta{APIVersion: clientauthv1.SchemeGroupVersion.String(), Kind: "ExecCredential"},
		Status:   &clientauthv1.ExecCredentialStatus{Token: token},
	}
	if expires != nil {
		t := metav1.NewTime(*expires)
		cred.Status.ExpirationTimestamp = &t
	}
	return cred
}

func readCachedToken(path string, now time.Time) (*clientauthv1.ExecCredential, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	var cred clientauthv1.ExecCredential
	if json.Unmarshal(b, &cred) != nil || cred.Status == nil || cred.Status.ExpirationTimestamp == nil ||
		!now.Add(cachedTokenMargin).Before(cred.Status.ExpirationTimestamp.Time) {
		return nil, false
	}
	return &cred, true
}

// writeCachedToken keeps cred at path, mode 0600 in directories of mode
// 0700: it is a credential. Tokens of the directory that expired by now
// are removed.
func writeCachedToken(path string, cred *clientauthv1.ExecCredential, now time.Time) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.json"))
	for _, f := range old {
		if _, ok := readCachedToken(f, now.Add(-cachedTokenMargin)); !ok {
			_ = os.Remove(f)
		}
	}
	b, err := json.Marshal(cred)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".token-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
