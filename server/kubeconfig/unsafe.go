package kubeconfig

import (
	"fmt"
	"net/url"
	"sort"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// unsafeRefs lists what, in cfg, would make whoever uses it trust an
// impostor or reach somewhere other than a cluster's API server: TLS
// verification turned off, a proxy, a server in clear (http://), a server
// on a cloud's instance metadata service (169.254.169.254 and every
// spelling and name of it, see metadataHost), user information in the
// server URL. Each entry says why. Sorted, so messages are stable.
func unsafeRefs(cfg *clientcmdapi.Config) []string {
	var out []string
	for name, cl := range cfg.Clusters {
		if cl.InsecureSkipTLSVerify {
			out = append(out, fmt.Sprintf("cluster %q sets insecure-skip-tls-verify, so anyone between KubeOpera and the "+
				"API server could pose as it (give certificate-authority-data instead)", name))
		}
		if cl.ProxyURL != "" {
			out = append(out, fmt.Sprintf("cluster %q sets proxy-url, which would send KubeOpera's requests, "+
				"credentials included, through another host", name))
		}
		u, err := url.Parse(cl.Server)
		if err != nil {
			continue // summarize reports a bad server URL
		}
		if u.User != nil {
			out = append(out, fmt.Sprintf("cluster %q has user information in its server URL: put credentials in the user, not the URL", name))
		}
		if u.Scheme == "http" {
			out = append(out, fmt.Sprintf("cluster %q has an http:// server, so KubeOpera's credential for it would travel "+
				"in clear: use the API server's https:// address", name))
		}
		if where, ok := metadataHost(u.Hostname()); ok {
			out = append(out, fmt.Sprintf("cluster %q has its server on %s, where clouds serve "+
				"instance metadata and credentials, not Kubernetes", name, where))
		}
	}
	sort.Strings(out)
	return out
}
