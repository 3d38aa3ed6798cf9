package bootstrap

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// manifests keeps the kubectl calls that install a component (apply of
// the CNI, the cloud controller, the EBS driver), not the manager account
// or its tokens.
func manifests(kubectl []string) []string {
	var out []string
	for _, a := range kubectl {
		if strings.Contains(a, " apply ") && !strings.HasSuffix(a, "/manager.yaml") {
			out = append(out, a)
		}
	}
	return out
}

// checkNoAdminConfInSSM fails when any parameter holds a client
// certificate or key: admin.conf must never leave the control planes.
func checkNoAdminConfInSSM(t *testing.T, r *relay) {
	t.Helper()
	err := filepath.Walk(filepath.Join(r.store, "values"), func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, secret := range []string{"client-key-data", "client-certificate-data", "kubernetes-admin"} {
			if strings.Contains(string(data), secret) {
				t.Errorf("parameter %s holds %s: admin.conf was published", strings.TrimPrefix(path, r.store), secret)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// managerToken reads the published kubeconfig's token and its expiry.
func managerToken(t *testing.T, r *relay) (string, time.Time) {
	t.Helper()
	kc, _ := r.param(AdminKubeconfigParameter(testClusterID))
	var token string
	for _, line := range strings.Split(kc, "\n") {
		if v, ok := strings.CutPrefix(line, "    token: "); ok {
			token = v
		}
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("published kubeconfig has no token (a JWT):\n%s", kc)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Exp int64  `json:"exp"`
		Sub string `json:"sub"`
	}
	if err != nil || json.Unmarshal(payload, &claims) != nil {
		t.Fatalf("token payload %q: %v", parts[1], err)
	}
	if claims.Sub != "system:serviceaccount:kube-system:kubeopera-manager" {
		t.Errorf("token is of %s, want the kubeopera-manager ServiceAccount", claims.Sub)
	}
	for _, want := range []string{"current-context: kubeopera-manager\n", "    certificate-authority-data: "} {
		if !strings.Contains(kc, want) {
			t.Errorf("published kubeconfig lacks %q:\n%s", want, kc)
		}
	}
	return token, time.Unix(claims.Exp, 0)
}

// Member 0 gives KubeOpera its own credential: a ServiceAccount bound to
// cluster-admin and a 2-hour token of it in the published kubeconfig,
// never admin.conf's year-long client certificate. Every control plane
// installs a timer that publishes a new token every 30 minutes.
func TestMemberZeroPublishesAManagerTokenNotAdminConf(t *testing.T) {
	r := newRelay(t)
	start := time.Now()
	res := r.run(node{name: "cp0", variant: "single_cp0", ip: "10.0.1.10"})
	requireExit(t, res, "cp0", 0)
	root := res["cp0"].root
	evs := r.events()

	account := read(t, filepath.Join(root, "var/lib/kubeopera/manager.yaml"))
	for _, want := range []string{"kind: ServiceAccount\nmetadata:\n  name: kubeopera-manager\n  namespace: kube-system\n",
		"kind: ClusterRoleBinding", "  kind: ClusterRole\n  name: cluster-admin\n",
		"- kind: ServiceAccount\n  name: kubeopera-manager\n  namespace: kube-system\n"} {
		if !strings.Contains(account, want) {
			t.Errorf("manager.yaml lacks %q:\n%s", want, account)
		}
	}
	applied, created, ready := -1, -1, -1
	for i, e := range evs {
		switch {
		case e.name == "kubectl" && strings.HasSuffix(e.args, "apply -f "+root+"/var/lib/kubeopera/manager.yaml"):
			applied = i
		case e.name == "kubectl" && strings.Contains(e.args, "-n kube-system create token kubeopera-manager --duration 2h"):
			created = i
		case e.name == "aws-put" && strings.HasPrefix(e.args, MemberParameter(testClusterID, 0)+" "):
			ready = i
		}
	}
	if applied < 0 || created < applied || ready < created {
		t.Errorf("account applied at event %d, token created at %d, ready at %d: want that order", applied, created, ready)
	}
	token, exp := managerToken(t, r)
	if d := exp.Sub(start); d < 119*time.Minute || d > 121*time.Minute {
		t.Errorf("token expires %s after the start, want 2h", d)
	}
	checkNoAdminConfInSSM(t, r)
	if strings.Contains(res["cp0"].console, token) {
		t.Error("the token was printed on the console")
	}
	timer := read(t, filepath.Join(root, "etc/systemd/system/kubeopera-refresh-credential.timer"))
	if !strings.Contains(timer, "OnUnitActiveSec=30min\n") {
		t.Errorf("credential timer:\n%s\nwant a run every 30 minutes", timer)
	}
	service := read(t, filepath.Join(root, "etc/systemd/system/kubeopera-refresh-credential.service"))
	if !strings.Contains(service, "ExecStart=/usr/local/sbin/kubeopera-bootstrap refresh-credential\n") {
		t.Errorf("credential service:\n%s", service)
	}
	enabled := false
	for _, e := range evs {
		enabled = enabled || (e.name == "systemctl" && e.args == "enable --now kubeopera-refresh-credential.timer")
	}
	if !enabled {
		t.Error("the credential timer was not enabled")
	}
}

// The timer fires: a new token replaces the old one in the parameter,
// for the public endpoint, and the member's marker is untouched. A failed
// refresh leaves the last token (still valid) and the marker alone.
func TestControlPlanesRefreshTheManagerToken(t *testing.T) {
	r := newRelay(t)
	res := r.run(node{name: "cp0", variant: "single_cp0", ip: "10.0.1.10"})
	requireExit(t, res, "cp0", 0)
	first, _ := managerToken(t, r)

	res = r.run(node{name: "cp0", variant: "single_cp0", ip: "10.0.1.10", args: []string{"refresh-credential"}})
	requireExit(t, res, "cp0", 0)
	second, _ := managerToken(t, r)
	if second == first {
		t.Error("refresh-credential published the same token again")
	}
	kc, _ := r.param(AdminKubeconfigParameter(testClusterID))
	if !strings.Contains(kc, "    server: https://single-public.kubeopera.test:6443\n") {
		t.Errorf("refreshed kubeconfig does not name the public endpoint:\n%s", kc)
	}
	if count(r.events(), "kubeadm-init-start") != 1 || strings.Contains(res["cp0"].console, second) {
		t.Error("refresh ran kubeadm init again or printed the token")
	}
	checkNoAdminConfInSSM(t, r)

	res = r.run(node{name: "cp0", variant: "single_cp0", ip: "10.0.1.10", args: []string{"refresh-credential"},
		env: []string{"STUB_FAIL_TOKEN=1"}})
	requireExit(t, res, "cp0", 1)
	if kept, _ := managerToken(t, r); kept != second {
		t.Error("a failed refresh replaced the published token")
	}
	if m := r.marker(MemberParameter(testClusterID, 0)); m.State != Ready {
		t.Errorf("member 0 marker after a failed refresh = %+v, want still ready", m)
	}
}
