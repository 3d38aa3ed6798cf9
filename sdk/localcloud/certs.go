package localcloud

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// certValidity is long enough for any development session.
const certValidity = 365 * 24 * time.Hour

// pki is a cluster's certificate authority and the credentials it issued.
type pki struct {
	caCert            []byte
	adminCert, admKey []byte
}

// writePKI writes the CA, the API server's serving certificate, an admin
// client certificate (group system:masters) and the service-account
// signing key pair into the cluster directory.
func (c cluster) writePKI() (pki, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return pki{}, err
	}
	caTmpl := template(pkix.Name{CommonName: "kubeopera-local-ca"})
	caTmpl.IsCA, caTmpl.BasicConstraintsValid = true, true
	caTmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return pki{}, fmt.Errorf("local cluster CA: %w", err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	serving := template(pkix.Name{CommonName: "kube-apiserver"})
	serving.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	serving.DNSNames = []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"}
	serving.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv4(10, 0, 0, 1)}
	srvCert, srvKey, err := issue(ca, caKey, serving)
	if err != nil {
		return pki{}, err
	}
	admin := template(pkix.Name{CommonName: "kubeopera-local-admin", Organization: []string{"system:masters"}})
	admin.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	admCert, admKey, err := issue(ca, caKey, admin)
	if err != nil {
		return pki{}, err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return pki{}, err
	}
	saPub, err := x509.MarshalPKIXPublicKey(saKey.Public())
	if err != nil {
		return pki{}, err
	}
	p := pki{caCert: pemBlock("CERTIFICATE", caDER), adminCert: admCert, admKey: admKey}
	files := map[string][]byte{
		"ca.crt": p.caCert, "apiserver.crt": srvCert, "apiserver.key": srvKey,
		"sa.key": pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(saKey)), "sa.pub": pemBlock("PUBLIC KEY", saPub),
	}
	for name, data := range files {
		if err := os.WriteFile(c.path(name), data, 0o600); err != nil {
			return pki{}, err
		}
	}
	return p, nil
}

func template(subject pkix.Name) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	now := time.Now()
	return &x509.Certificate{SerialNumber: serial, Subject: subject, NotBefore: now.Add(-time.Minute),
		NotAfter: now.Add(certValidity), KeyUsage: x509.KeyUsageDigitalSignature}
}

// issue signs tmpl with the CA and returns the certificate and a new key,
// both PEM.
func issue(ca *x509.Certificate, caKey crypto.Signer, tmpl *x509.Certificate) (cert, key []byte, err error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, k.Public(), caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("issue %s certificate: %w", tmpl.Subject.CommonName, err)
	}
	return pemBlock("CERTIFICATE", der), mustKeyPEM(k), nil
}

func mustKeyPEM(k *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		panic(err) // only fails for curves Go does not support
	}
	return pemBlock("EC PRIVATE KEY", der)
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// kubeconfig is an admin kubeconfig with every credential embedded.
func (p pki) kubeconfig(id, server string) ([]byte, error) {
	name := "kubeopera-local-" + id
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: p.caCert}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: p.adminCert, ClientKeyData: p.admKey}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	cfg.CurrentContext = name
	return clientcmd.Write(*cfg)
}
