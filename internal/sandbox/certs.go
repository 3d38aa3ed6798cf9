package sandbox

import (
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"

	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// useOwnCertificates gives the API server a serving certificate that also
// names names (envtest's names only localhost and 127.0.0.1, so a pod that
// reaches the kubernetes Service at 10.0.0.1 would refuse it), and the
// service account signing key that goes with it: envtest makes neither
// when its certificate directory already holds apiserver.crt. The API
// server also reaches kubelets by InternalIP only: the default tries the
// Hostname address first, a DNS look-up of the node's name. Pods get their
// service account tokens mounted.
func useOwnCertificates(api *envtest.APIServer, dir string, names []string) error {
	ips := []net.IP{net.ParseIP("127.0.0.1")}
	dns := []string{"localhost"}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			ips = append(ips, ip)
		} else {
			dns = append(dns, n)
		}
	}
	crt, key, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", ips, dns)
	if err != nil {
		return fmt.Errorf("api server serving certificate: %w", err)
	}
	// crt holds the serving certificate, then the CA that signed it.
	serving, rest := pem.Decode(crt)
	if serving == nil || len(rest) == 0 {
		return fmt.Errorf("api server serving certificate: expected a certificate and its CA")
	}
	saCrt, saKey, err := certutil.GenerateSelfSignedCertKey("service-accounts", nil, nil)
	if err != nil {
		return fmt.Errorf("service account signing key: %w", err)
	}
	saFirst, _ := pem.Decode(saCrt)
	files := map[string][]byte{
		"apiserver.crt": crt, "apiserver.key": key,
		// envtest's names for the signing key pair.
		"sa-signer.crt": pem.EncodeToMemory(saFirst), "sa-signer.key": saKey,
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return err
		}
	}
	api.CertDir = dir
	api.CA = rest
	api.Configure().Set("kubelet-preferred-address-types", "InternalIP")
	// envtest turns the ServiceAccount admission plugin off; without it no
	// pod gets its token mounted (a Job's terraform needs it for the
	// kubernetes backend). The default ServiceAccount then has to exist:
	// kube-controller-manager (Workloads) makes it.
	api.Configure().Disable("disable-admission-plugins")
	return nil
}
