package sandbox

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/url"
	"testing"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// With APIServerNames, the API server's certificate names them (pods of a
// real node verify it at 10.0.0.1), the client CA trusts it, and the
// service account tokens it issues are accepted: a pod's token works.
func TestAPIServerNamesGiveACertificateForPodsAndWorkingTokens(t *testing.T) {
	s := start(t, Options{APIServerNames: []string{"10.0.0.1", "kubernetes.default.svc"}})
	ctx := context.Background()
	u, err := url.Parse(s.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(s.Config.CAData) {
		t.Fatal("the sandbox's kubeconfig holds no CA")
	}
	// Dial the loopback address but verify the certificate as a pod would,
	// for the Service's address and name.
	for _, name := range []string{"10.0.0.1", "kubernetes.default.svc", "127.0.0.1", "localhost"} {
		conn, err := tls.Dial("tcp", u.Host, &tls.Config{RootCAs: pool, ServerName: name})
		if err != nil {
			t.Errorf("TLS to the API server as %s: %v", name, err)
			continue
		}
		_ = conn.Close()
	}
	if conn, err := tls.Dial("tcp", u.Host, &tls.Config{RootCAs: pool, ServerName: "10.0.0.2"}); err == nil {
		_ = conn.Close()
		t.Error("the certificate also verified for 10.0.0.2, a name it was not given")
	}
	if net.ParseIP(u.Hostname()) == nil {
		t.Fatalf("api server host %q is not an address", u.Hostname())
	}

	sa, err := s.Client.CoreV1().ServiceAccounts("default").Create(ctx,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "pod-identity"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Client.CoreV1().ServiceAccounts("default").CreateToken(ctx, sa.Name,
		&authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token request: %v", err)
	}
	review, err := s.Client.AuthenticationV1().TokenReviews().Create(ctx,
		&authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: tok.Status.Token}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "system:serviceaccount:default:pod-identity"; !review.Status.Authenticated || review.Status.User.Username != want {
		t.Errorf("token review = %+v, want authenticated as %s", review.Status, want)
	}
}
