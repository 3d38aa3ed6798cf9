package api

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// The exec kubeconfig's user runs `kubeopera cluster-token` for this
// server and cluster, in the ExecCredential version it prints, never
// interactively; it carries no token and the server's CA.
func TestExecKubeconfigRunsClusterTokenForThisServerAndCluster(t *testing.T) {
	b, err := execProxyKubeconfig("prod", "https://kubeopera.example.com/k8s/clusters/c1", []byte("ca-pem"), "https://kubeopera.example.com", "c1")
	if err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	u := kc.AuthInfos[kc.Contexts[kc.CurrentContext].AuthInfo]
	if u.Token != "" || u.Exec == nil || u.Exec.Command != "kubeopera" || u.Exec.APIVersion != "client.authentication.k8s.io/v1" ||
		strings.Join(u.Exec.Args, " ") != "cluster-token --server https://kubeopera.example.com --cluster c1" ||
		u.Exec.InteractiveMode != "Never" {
		t.Errorf("user %+v, exec %+v", u, u.Exec)
	}
	if c := kc.Clusters[kc.Contexts[kc.CurrentContext].Cluster]; c.Server != "https://kubeopera.example.com/k8s/clusters/c1" ||
		string(c.CertificateAuthorityData) != "ca-pem" {
		t.Errorf("cluster %+v", c)
	}
}

// A credential the route does not know is refused before anything is
// looked up.
func TestKubeconfigRouteRefusesAnUnknownCredential(t *testing.T) {
	e := newEnv(t, envOpts{})
	row := &store.Cluster{Name: "kc", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Ready"}
	if err := e.st.CreateCluster(context.Background(), row); err != nil {
		t.Fatal(err)
	}
	code, body := e.do(http.MethodGet, "/api/v1/clusters/"+row.ID+"/kubeconfig?credential=password", e.viewer, nil)
	if code != 400 || !strings.Contains(string(body), "credential") {
		t.Errorf("credential=password: %d %s, want 400 naming the parameter", code, body)
	}
}
