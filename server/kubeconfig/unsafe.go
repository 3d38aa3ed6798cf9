package kubeconfig

import (
	"fmt"
	"net/netip"
	"net/url"
	"sort"
	"strings"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// unsafeRefs lists what, in cfg, would make whoever uses it trust an
// impostor or reach somewhere other than a cluster's API server: TLS
// verification turned off, a proxy, a server on a link-local address (a
// cloud's instance metadata service, 169.254.169.254), user information
// in the server URL. Each entry says why. Sorted, so messages are stable.
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
		if a, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && a.Unmap().IsLinkLocalUnicast() {
			out = append(out, fmt.Sprintf("cluster %q has its server on link-local address %s, where clouds serve "+
				"instance metadata and credentials, not Kubernetes", name, a.Unmap()))
		}
	}
	sort.Strings(out)
	return out
}
