package kubeconfig

import (
	"fmt"
	"sort"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// externalRefs lists what, in cfg, would make whoever uses it run a command
// or read its own files: exec plugins, auth providers, and file paths for
// tokens, certificates and keys. Sorted, so messages are stable.
func externalRefs(cfg *clientcmdapi.Config) []string {
	var out []string
	for name, u := range cfg.AuthInfos {
		switch {
		case u.Exec != nil:
			out = append(out, fmt.Sprintf("user %q uses an exec plugin (%s), which runs a command", name, u.Exec.Command))
		case u.AuthProvider != nil:
			out = append(out, fmt.Sprintf("user %q uses auth-provider %q", name, u.AuthProvider.Name))
		case u.TokenFile != "" || u.ClientCertificate != "" || u.ClientKey != "":
			out = append(out, fmt.Sprintf("user %q refers to files (embed them as token, client-certificate-data, client-key-data)", name))
		}
	}
	for name, cl := range cfg.Clusters {
		if cl.CertificateAuthority != "" {
			out = append(out, fmt.Sprintf("cluster %q refers to a certificate-authority file (embed it as certificate-authority-data)", name))
		}
	}
	sort.Strings(out)
	return out
}
