package sdktest

import (
	"fmt"
	"net/url"

	"gopkg.in/yaml.v3"
)

// kubeconfig is the part of a kubeconfig the host relies on and the kit
// dials.
type kubeconfig struct {
	APIVersion     string `yaml:"apiVersion"`
	Kind           string `yaml:"kind"`
	CurrentContext string `yaml:"current-context"`
	Clusters       []struct {
		Name    string      `yaml:"name"`
		Cluster clusterInfo `yaml:"cluster"`
	} `yaml:"clusters"`
	Contexts []struct {
		Name    string `yaml:"name"`
		Context struct {
			Cluster string `yaml:"cluster"`
			User    string `yaml:"user"`
		} `yaml:"context"`
	} `yaml:"contexts"`
	Users []struct {
		Name string   `yaml:"name"`
		User userInfo `yaml:"user"`
	} `yaml:"users"`
}

// clusterInfo is how to reach and trust an API server.
type clusterInfo struct {
	Server                   string `yaml:"server"`
	CertificateAuthority     string `yaml:"certificate-authority"`
	CertificateAuthorityData string `yaml:"certificate-authority-data"` // base64
	InsecureSkipTLSVerify    bool   `yaml:"insecure-skip-tls-verify"`
	TLSServerName            string `yaml:"tls-server-name"`
}

// userInfo is how to authenticate to it.
type userInfo struct {
	ClientCertificate     string `yaml:"client-certificate"`
	ClientCertificateData string `yaml:"client-certificate-data"`
	ClientKey             string `yaml:"client-key"`
	ClientKeyData         string `yaml:"client-key-data"`
	Token                 string `yaml:"token"`
	TokenFile             string `yaml:"tokenFile"`
	Username              string `yaml:"username"`
	Password              string `yaml:"password"`
	Exec                  *struct {
		Command string `yaml:"command"`
	} `yaml:"exec"`
	AuthProvider *struct {
		Name string `yaml:"name"`
	} `yaml:"auth-provider"`
}

// current is what the current context of a kubeconfig names.
type current struct {
	context, cluster string
	clusterInfo
	user userInfo
}

// parseKubeconfig parses data as a kubeconfig whose current context names
// a cluster with a server URL and a user, and returns them.
func parseKubeconfig(data []byte) (current, error) {
	var kc kubeconfig
	if err := yaml.Unmarshal(data, &kc); err != nil {
		return current{}, fmt.Errorf("not YAML: %w", err)
	}
	if kc.Kind != "Config" || kc.APIVersion != "v1" {
		return current{}, fmt.Errorf("kind %q, apiVersion %q: want a v1 Config", kc.Kind, kc.APIVersion)
	}
	for _, c := range kc.Contexts {
		if c.Name != kc.CurrentContext {
			continue
		}
		for _, cl := range kc.Clusters {
			if cl.Name != c.Context.Cluster {
				continue
			}
			if u, err := url.Parse(cl.Cluster.Server); err != nil || u.Host == "" {
				return current{}, fmt.Errorf("cluster %q has server %q, want a URL", cl.Name, cl.Cluster.Server)
			}
			for _, u := range kc.Users {
				if u.Name == c.Context.User {
					return current{context: c.Name, cluster: cl.Name, clusterInfo: cl.Cluster, user: u.User}, nil
				}
			}
			return current{}, fmt.Errorf("context %q names user %q, which is not in users", c.Name, c.Context.User)
		}
		return current{}, fmt.Errorf("context %q names cluster %q, which is not in clusters", c.Name, c.Context.Cluster)
	}
	return current{}, fmt.Errorf("current-context %q is not one of its contexts", kc.CurrentContext)
}
