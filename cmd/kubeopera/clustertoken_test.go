package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientauthv1 "k8s.io/client-go/pkg/apis/clientauthentication/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// A kubeconfig from `clusters kubeconfig NAME --exec` holds no token:
// client-go runs the real kubeopera binary's `cluster-token`, reaches a
// real cluster through the server's proxy as the logged-in user, and runs
// it again once the credential's expirationTimestamp passes, so a request
// after the expiry succeeds with a token got from the newer login.
func TestExecKubeconfigRunsClusterTokenAndRefreshesAtExpiry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := t.TempDir()
	goBuild(t, filepath.Join(bin, "kubeopera"), ".")
	sb, err := sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{"../../config/crd/bases"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	for _, b := range gitops.AccessBindings() {
		if _, err := sb.Client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// client-go sends a kubeconfig's credentials over TLS only: the server
	// serves HTTPS with a certificate the CLI trusts through SSL_CERT_FILE
	// and the kubeconfig carries as its CA.
	certs := t.TempDir()
	certFile, keyFile := filepath.Join(certs, "tls.crt"), filepath.Join(certs, "tls.key")
	writeServingCert(t, certFile, keyFile)
	t.Setenv("SSL_CERT_FILE", certFile)
	url := startCLIServerArgs(t, t.TempDir(), []string{"--kubeconfig", sb.KubeconfigPath, "--self-kubeconfig", "",
		"--tls-cert-file", certFile, "--tls-key-file", keyFile})
	config := filepath.Join(t.TempDir(), "kubeopera", "config.yaml")
	t.Setenv("KUBEOPERA_CONFIG", config)
	t.Setenv("KUBEOPERA_SERVER", "")
	t.Setenv("KUBEOPERA_TOKEN", "")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	login := func(ttl string) time.Time {
		t.Helper()
		if out, err := runCLI(t, cliPassword+"\n", "login", url, "-u", "ops", "--password-stdin", "--context", "lab", "--ttl", ttl); err != nil {
			t.Fatalf("login: %v\n%s", err, out)
		}
		cfg, _, err := loadConfig()
		if err != nil {
			t.Fatal(err)
		}
		c, err := cfg.context("lab")
		if err != nil {
			t.Fatal(err)
		}
		return *c.ExpiresAt
	}
	login("1h")
	cfg, _, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	connectSandbox(t, url, cfg.Contexts[0].Token, sb.Kubeconfig)

	// A short login: the cluster token ends with it.
	firstExpiry := login("10s")
	out, err := runCLI(t, "", "clusters", "kubeconfig", "self", "--exec")
	if err != nil {
		t.Fatalf("clusters kubeconfig --exec: %v\n%s", err, out)
	}
	kc, err := clientcmd.Load([]byte(out))
	if err != nil {
		t.Fatalf("the answer is no kubeconfig: %v\n%s", err, out)
	}
	user := kc.AuthInfos[kc.Contexts[kc.CurrentContext].AuthInfo]
	if user.Token != "" || user.Exec == nil || user.Exec.Command != "kubeopera" || user.Exec.APIVersion != "client.authentication.k8s.io/v1" ||
		strings.Join(user.Exec.Args[:3], " ") != "cluster-token --server "+url {
		t.Fatalf("the kubeconfig's user is not an exec entry running kubeopera cluster-token --server %s: %+v", url, user)
	}
	rc, err := clientcmd.RESTConfigFromKubeConfig([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	whoAmI := func() (string, error) {
		r, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			return "", err
		}
		return r.Status.UserInfo.Username, nil
	}
	if name, err := whoAmI(); err != nil || name != "kubeopera:ops" {
		t.Fatalf("through the exec credential: %q, %v; want kubeopera:ops", name, err)
	}
	if _, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("list namespaces as a platform admin: %v", err)
	}
	cred := runClusterToken(t, filepath.Join(bin, "kubeopera"), url, user.Exec.Args[4])
	if exp := cred.Status.ExpirationTimestamp; exp == nil || exp.After(firstExpiry) || !exp.After(time.Now()) {
		t.Fatalf("expirationTimestamp %v, want in the future and no later than the login's expiry %v", exp, firstExpiry)
	}

	// A new login; once the first credential's expiry passes, client-go
	// runs cluster-token again before it sends the next request (without
	// the expiry it would send the dead token and get a 401).
	login("720h")
	time.Sleep(time.Until(firstExpiry) + 500*time.Millisecond)
	if name, err := whoAmI(); err != nil || name != "kubeopera:ops" {
		t.Fatalf("the first request after the credential's expiry: %q, %v (401: the credential was not refreshed)", name, err)
	}

	// A token that lives long enough is cached (mode 0600) and handed out again.
	a := runClusterToken(t, filepath.Join(bin, "kubeopera"), url, user.Exec.Args[4])
	b := runClusterToken(t, filepath.Join(bin, "kubeopera"), url, user.Exec.Args[4])
	if a.Status.Token != b.Status.Token {
		t.Error("two runs within the token's life got two tokens: no cache")
	}
	cached, _ := filepath.Glob(filepath.Join(filepath.Dir(config), "cache", "cluster-tokens", "*.json"))
	if len(cached) != 1 {
		t.Fatalf("cached tokens: %v, want one", cached)
	}
	if fi, err := os.Stat(cached[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("cached token file: %v %v, want mode 0600", fi.Mode(), err)
	}

	// Not logged in to that server: the error says what to run.
	if _, err := runCLI(t, "", "cluster-token", "--server", "http://127.0.0.1:1", "--cluster", "x"); exitCodeOf(err) != exitAuth ||
		!strings.Contains(err.Error(), "kubeopera login http://127.0.0.1:1") {
		t.Errorf("cluster-token for a server never logged in to: %v (exit %d)", err, exitCodeOf(err))
	}
}

// writeServingCert writes a self-signed certificate for 127.0.0.1.
func writeServingCert(t *testing.T, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "kubeopera-test"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for path, block := range map[string]*pem.Block{certFile: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "EC PRIVATE KEY", Bytes: kder}} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// runClusterToken runs the built binary as client-go would and reads the
// ExecCredential it prints.
func runClusterToken(t *testing.T, bin, server, cluster string) clientauthv1.ExecCredential {
	t.Helper()
	out, err := exec.Command(bin, "cluster-token", "--server", server, "--cluster", cluster).Output()
	if err != nil {
		t.Fatalf("cluster-token: %v", err)
	}
	var cred clientauthv1.ExecCredential
	if err := json.Unmarshal(out, &cred); err != nil || cred.Kind != "ExecCredential" || cred.Status == nil || cred.Status.Token == "" {
		t.Fatalf("cluster-token printed no ExecCredential: %v\n%s", err, out)
	}
	return cred
}
