package fakeaws

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// The interceptor answers for the real STS hostname with a certificate a
// client trusts only through the test CA, and tunnels nowhere else.
func TestInterceptorServesTheRealHostname(t *testing.T) {
	s := Start(t)
	alice := s.IAM.AddUser(account, "alice")
	const host = "sts.eu-north-1.amazonaws.com"
	in := StartInterceptor(t, s.STS, host)

	pemBytes, err := os.ReadFile(in.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pemBytes) {
		t.Fatal("CAFile holds no certificate")
	}
	proxyURL, _ := url.Parse(in.URL)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		Proxy:           http.ProxyURL(proxyURL),
		TLSClientConfig: &tls.Config{RootCAs: roots},
	}}

	req, _ := http.NewRequest(http.MethodGet, "https://"+host+"/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Expires=60", nil)
	req.Header.Set("x-k8s-aws-id", "c1")
	signed, _, err := v4.NewSigner().PresignHTTP(context.Background(), awsCredentials(alice), req, emptyPayloadHash, "sts", "eu-north-1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	status, body := do(t, client, signed, "c1")
	if status != http.StatusOK || !strings.Contains(body, "<Arn>"+alice.ARN+"</Arn>") {
		t.Fatalf("through the interceptor: %d %s", status, body)
	}
	if seen := s.STS.Seen(); len(seen) != 1 || seen[0].Host != host {
		t.Errorf("Seen = %+v, want one request for Host %s", seen, host)
	}

	if _, err := client.Get("https://sts.us-east-1.amazonaws.com/"); err == nil {
		t.Error("a host the interceptor does not answer for was reached")
	}
	untrusting := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}
	if _, err := untrusting.Get("https://" + host + "/"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client without the test CA: err %v, want a certificate error", err)
	}
}

func do(t *testing.T, c *http.Client, rawURL, clusterID string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, rawURL, nil)
	req.Header.Set("x-k8s-aws-id", clusterID)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
