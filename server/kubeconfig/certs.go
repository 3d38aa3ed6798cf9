package kubeconfig

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"

	"gopkg.in/yaml.v3"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// checkCA checks that a cluster's certificate-authority-data, when set,
// holds PEM certificates: anything else would be accepted at connect and
// fail every later call to the cluster.
func checkCA(name string, cluster *clientcmdapi.Cluster, entry *yaml.Node) error {
	data := cluster.CertificateAuthorityData
	if len(data) == 0 {
		return nil
	}
	n := 0
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return caError(name, entry, "holds a certificate that does not parse")
		}
		n++
	}
	if n == 0 {
		return caError(name, entry, "is not a PEM certificate")
	}
	return nil
}

func caError(name string, entry *yaml.Node, what string) *Error {
	v, key, inner := entryField(entry, "cluster", "certificate-authority-data")
	return &Error{Line: lineOf(v, key, inner, entry), Message: fmt.Sprintf(
		"certificate-authority-data of cluster %q %s: paste the base64 of the cluster's CA certificate as it appears in the original file",
		name, what)}
}

// Detail is the message with its line, without the "kubeconfig: " prefix,
// for a field error that already names the kubeconfig.
func (e *Error) Detail() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Message)
	}
	return e.Message
}
