package sdktest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk/hostenv"
)

// apiServer is the API server a kubeconfig's current context names, reached
// with the standard library only (module sdk has no Kubernetes dependency):
// its CA, client certificate, bearer token or basic credentials.
type apiServer struct {
	url    string
	client *http.Client
	auth   func(*http.Request)
	// notDialed says why the kit does not dial it (the credential comes
	// from a program or an auth provider); "" when it does.
	notDialed string
}

// apiServerOf reads how to reach the API server of data's current context.
func apiServerOf(data []byte) (*apiServer, error) {
	cur, err := parseKubeconfig(data)
	if err != nil {
		return nil, err
	}
	a := &apiServer{url: strings.TrimSuffix(cur.Server, "/"), auth: func(*http.Request) {}}
	u := cur.user
	switch {
	case u.Exec != nil:
		a.notDialed = fmt.Sprintf("user of context %q gets its credential by running %q (exec); the kit does not run it, so it did not dial %s",
			cur.context, u.Exec.Command, a.url)
		return a, nil
	case u.AuthProvider != nil:
		a.notDialed = fmt.Sprintf("user of context %q authenticates with auth provider %q; the kit did not dial %s", cur.context, u.AuthProvider.Name, a.url)
		return a, nil
	}
	tlsCfg := &tls.Config{ServerName: cur.TLSServerName, InsecureSkipVerify: cur.InsecureSkipTLSVerify} //nolint:gosec // as the kubeconfig says
	ca, err := dataOrFile(cur.CertificateAuthorityData, cur.CertificateAuthority, "certificate-authority")
	if err != nil {
		return nil, err
	}
	if len(ca) > 0 {
		tlsCfg.RootCAs = x509.NewCertPool()
		if !tlsCfg.RootCAs.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("cluster %q: certificate-authority holds no PEM certificate", cur.cluster)
		}
	}
	cert, err := dataOrFile(u.ClientCertificateData, u.ClientCertificate, "client-certificate")
	if err != nil {
		return nil, err
	}
	key, err := dataOrFile(u.ClientKeyData, u.ClientKey, "client-key")
	if err != nil {
		return nil, err
	}
	if len(cert) > 0 || len(key) > 0 {
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("user of context %q: client certificate and key: %w", cur.context, err)
		}
		tlsCfg.Certificates = []tls.Certificate{pair}
	}
	token := u.Token
	if token == "" && u.TokenFile != "" {
		b, err := os.ReadFile(u.TokenFile)
		if err != nil {
			return nil, fmt.Errorf("user of context %q: tokenFile: %w", cur.context, err)
		}
		token = strings.TrimSpace(string(b))
	}
	switch {
	case token != "":
		a.auth = func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
	case u.Username != "":
		a.auth = func(r *http.Request) { r.SetBasicAuth(u.Username, u.Password) }
	}
	// No proxy from the environment: the kit dials what the kubeconfig names.
	a.client = &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg, Proxy: nil}, Timeout: hostenv.CallTimeout}
	return a, nil
}

// dataOrFile is the decoded base64 data, else the named file's content.
func dataOrFile(data, file, what string) ([]byte, error) {
	if data != "" {
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, fmt.Errorf("%s-data is not base64: %w", what, err)
		}
		return b, nil
	}
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return b, nil
}

// get decodes the JSON the API server answers to GET path.
func (a *apiServer) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.url+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	a.auth(req)
	resp, err := a.client.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, strings.TrimSpace(string(body[:min(len(body), 300)])))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: not the JSON of an API server: %w", path, err)
	}
	return nil
}

// version is the API server's gitVersion.
func (a *apiServer) version(ctx context.Context) (string, error) {
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := a.get(ctx, "/version", &v); err != nil {
		return "", err
	}
	if v.GitVersion == "" {
		return "", errors.New("GET /version: no gitVersion in the answer")
	}
	return v.GitVersion, nil
}

// workers counts the nodes the API server lists that are not control
// planes, as the host counts a cluster's worker nodes.
func (a *apiServer) workers(ctx context.Context) (int, error) {
	var list struct {
		Items []struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := a.get(ctx, "/api/v1/nodes", &list); err != nil {
		return 0, err
	}
	n := 0
	for _, node := range list.Items {
		if _, cp := node.Metadata.Labels[hostenv.ControlPlaneLabel]; !cp {
			n++
		}
	}
	return n, nil
}

// dial reads the API server the kubeconfig data names and asks it for its
// version; nil when it cannot be dialed (a failure, or a credential the
// kit does not run, which it logs).
func (k *kit) dial(t *testing.T, data []byte) *apiServer {
	t.Helper()
	a, err := apiServerOf(data)
	if err != nil {
		t.Errorf("Kubeconfig returned something the host cannot use: %v", err)
		return nil
	}
	if k.cfg.SkipDial != "" {
		a.notDialed = "Config.SkipDial: " + k.cfg.SkipDial
	}
	if a.notDialed != "" {
		t.Logf("kubeconfig not dialed: %s", a.notDialed)
		return nil
	}
	v, err := a.version(k.ctx(t))
	if err != nil {
		t.Errorf("the kubeconfig from Kubeconfig names API server %s, which does not answer: %v", a.url, err)
		return nil
	}
	t.Logf("the kubeconfig's API server %s answers: Kubernetes %s", a.url, v)
	return a
}

// checkNodes fails unless the API server lists want worker nodes (0: the
// plugin did not say) within Config.LifecycleTimeout, the count the plugin
// reported after what.
func (k *kit) checkNodes(t *testing.T, a *apiServer, what string, want int) {
	t.Helper()
	if a == nil || want == 0 {
		return
	}
	deadline := time.Now().Add(k.cfg.LifecycleTimeout)
	for {
		got, err := a.workers(k.ctx(t))
		switch {
		case err == nil && got == want:
			t.Logf("after %s the cluster's API server lists %d worker nodes, as the plugin reports", what, got)
			return
		case time.Now().After(deadline) && err != nil:
			t.Errorf("after %s, listing the nodes on the cluster's API server %s: %v", what, a.url, err)
			return
		case time.Now().After(deadline):
			t.Errorf("after %s the plugin reports %d worker nodes, but the cluster's API server %s lists %d", what, want, a.url, got)
			return
		}
		time.Sleep(k.cfg.PollInterval)
	}
}
