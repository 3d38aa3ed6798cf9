package kubeconfig

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"
)

// A token pasted as a complex YAML key ends up quoted by the YAML-to-JSON
// conversion; every value and unknown key is redacted from parse errors.
func TestParseErrorsRedactTokensInComplexKeys(t *testing.T) {
	for _, tc := range []struct{ name, input string }{
		{"a flow-sequence key", strings.Replace(withSecrets, "token: "+secretToken, "? ["+secretToken+"]\n    : x", 1)},
		{"a mapping key", strings.Replace(withSecrets, "token: "+secretToken, "? {"+secretToken+": y}\n    : x", 1)},
		{"a key in clusters", strings.Replace(withSecrets, "server: https://prod.example.com",
			"server: https://prod.example.com\n    ? ["+secretToken+"]\n    : x", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Validate([]byte(tc.input), 0)
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), "SECRET-TOKEN") {
				t.Errorf("error repeats the token: %v", err)
			}
		})
	}
}

func selfSignedCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"}, IsCA: true,
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// certificate-authority-data that is not a certificate is a field error at
// connect, with its line, rather than a failure at every later call.
func TestCertificateAuthorityDataMustBeACertificate(t *testing.T) {
	withCA := func(data []byte) string {
		return strings.Replace(withSecrets, "server: https://prod.example.com",
			"server: https://prod.example.com\n    certificate-authority-data: "+base64.StdEncoding.EncodeToString(data), 1)
	}
	if _, err := Validate([]byte(withCA(selfSignedCA(t))), 0); err != nil {
		t.Errorf("a real CA certificate: %v", err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"plain text", []byte("this is not a certificate at all")},
		{"a PEM key instead", []byte(secretKey)},
		{"a broken certificate", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("garbage")})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Validate([]byte(withCA(tc.data)), 0)
			var kerr *Error
			if err == nil || !asError(err, &kerr) || kerr.Line != 7 || !strings.Contains(kerr.Message, "certificate-authority-data") {
				t.Errorf("error %v, want a kubeconfig error on line 7 naming certificate-authority-data", err)
			}
			if err != nil && strings.Contains(err.Error(), "SECRET-KEY") {
				t.Errorf("error repeats the data: %v", err)
			}
		})
	}
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	*target = e
	return ok
}

func TestErrorDetailHasNoPrefix(t *testing.T) {
	if got := (&Error{Line: 4, Message: "bad"}).Detail(); got != "line 4: bad" {
		t.Errorf("Detail = %q", got)
	}
	if got := (&Error{Message: "bad"}).Detail(); got != "bad" {
		t.Errorf("Detail = %q", got)
	}
}
