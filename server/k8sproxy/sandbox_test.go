package k8sproxy_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/k8sproxy"
	"github.com/ochestra-tech/kubeopera/server/store"
)

var (
	sbOnce sync.Once
	sb     *sandbox.Sandbox
	sbErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if sb != nil {
		sb.Stop()
	}
	os.Exit(code)
}

// cluster is one real kube-apiserver (RBAC on) for the package, with the
// GitOps tree's access bindings applied, and a proxy in front of it.
func cluster(t testing.TB) (*proxyEnv, *sandbox.Sandbox) {
	t.Helper()
	sbOnce.Do(func() {
		ctx := context.Background()
		if sb, sbErr = sandbox.Start(ctx, sandbox.Options{}); sbErr != nil {
			return
		}
		if sbErr = aggregateRoles(ctx, sb.Client); sbErr != nil {
			return
		}
		for _, b := range gitops.AccessBindings() {
			if _, sbErr = sb.Client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); sbErr != nil {
				return
			}
		}
	})
	if sbErr != nil {
		t.Fatal(sbErr)
	}
	return startProxy(t, clusters{"c1": {Name: "sandbox", Config: sb.Config}}, 500*time.Millisecond), sb
}

// aggregateRoles fills the aggregated ClusterRoles (view, edit, admin)
// with the rules of the roles they select, as kube-controller-manager's
// clusterrole-aggregation controller does on a real cluster; the sandbox
// runs no controller manager, and without it view grants nothing. An
// aggregated role can select another (view carries the aggregate-to-edit
// label), so it runs until nothing changes, as the controller converges.
func aggregateRoles(ctx context.Context, cs kubernetes.Interface) error {
	for range 5 {
		changed, err := aggregateOnce(ctx, cs)
		if err != nil || !changed {
			return err
		}
	}
	return fmt.Errorf("aggregated ClusterRoles still changing after 5 passes")
}

func aggregateOnce(ctx context.Context, cs kubernetes.Interface) (bool, error) {
	roles, err := cs.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	changed := false
	for _, r := range roles.Items {
		if r.AggregationRule == nil {
			continue
		}
		var rules []rbacv1.PolicyRule
		for _, sel := range r.AggregationRule.ClusterRoleSelectors {
			s, err := metav1.LabelSelectorAsSelector(&sel)
			if err != nil {
				return false, err
			}
			for _, part := range roles.Items {
				if part.Name != r.Name && s.Matches(labels.Set(part.Labels)) {
					rules = append(rules, part.Rules...)
				}
			}
		}
		if equality.Semantic.DeepEqual(r.Rules, rules) {
			continue
		}
		r.Rules, changed = rules, true
		if _, err := cs.RbacV1().ClusterRoles().Update(ctx, &r, metav1.UpdateOptions{}); err != nil {
			return false, fmt.Errorf("aggregate ClusterRole %s: %w", r.Name, err)
		}
	}
	return changed, nil
}

func client(t testing.TB, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": "v"}}
}

// A viewer reads and is refused changes by the target's own RBAC; an
// admin changes; each change, allowed or refused, is in the audit log.
func TestViewerReadsAndIsRefusedChangesAdminChanges(t *testing.T) {
	e, _ := cluster(t)
	ctx := context.Background()
	viewerTok, _ := e.token(t, "viewer-1", api.Viewer)
	adminTok, adminID := e.token(t, "admin-1", api.PlatformAdmin)
	viewer, admin := client(t, e.config("c1", viewerTok)), client(t, e.config("c1", adminTok))

	if _, err := viewer.CoreV1().Pods("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("viewer lists pods: %v", err)
	}
	_, err := viewer.CoreV1().ConfigMaps("default").Create(ctx, configMap("from-viewer"), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `"kubeopera:token:viewer-1"`) {
		t.Fatalf("viewer create: %v, want Forbidden for kubeopera:token:viewer-1", err)
	}
	if _, err := admin.CoreV1().ConfigMaps("default").Create(ctx, configMap("from-admin"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("admin create: %v", err)
	}
	events, err := e.st.ListAuditEvents(ctx, store.AuditFilter{Target: "c1", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]store.AuditEvent{}
	for _, ev := range events {
		got[ev.Actor] = ev
	}
	if ev := got["token:admin-1"]; ev.Method != "create" || ev.Status != 201 || ev.ActorID != adminID ||
		!strings.Contains(ev.Route, "configmaps namespace=default name=from-admin") {
		t.Errorf("admin's create audited as %+v", ev)
	}
	if ev := got["token:viewer-1"]; ev.Method != "create" || ev.Status != 403 {
		t.Errorf("viewer's refused create audited as %+v", ev)
	}
	if len(events) != 2 {
		t.Errorf("%d audit events, want the 2 creates only (reads are counted, not logged): %+v", len(events), events)
	}
}

// The caller's own Impersonate-* headers never reach the target: asking
// for system:masters leaves a viewer a viewer.
func TestCallerImpersonationIsNotPassedThrough(t *testing.T) {
	e, _ := cluster(t)
	ctx := context.Background()
	tok, _ := e.token(t, "viewer-2", api.Viewer)
	cfg := e.config("c1", tok)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "sandbox-admin", Groups: []string{"system:masters"}}
	cs := client(t, cfg)
	review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u := review.Status.UserInfo
	if u.Username != "kubeopera:token:viewer-2" || !contains(u.Groups, k8sproxy.GroupViewer) || contains(u.Groups, "system:masters") {
		t.Errorf("the target sees %s in %v, want kubeopera:token:viewer-2 in kubeopera:viewer only", u.Username, u.Groups)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, configMap("escalated"), metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("create with the caller's Impersonate headers: %v, want Forbidden", err)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// A watch through the proxy streams: a change made directly on the
// cluster arrives within a second.
func TestWatchSeesAChangeWithinASecond(t *testing.T) {
	e, sb := cluster(t)
	ctx := context.Background()
	tok, _ := e.token(t, "viewer-3", api.Viewer)
	w, err := client(t, e.config("c1", tok)).CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=watched"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := sb.Client.CoreV1().ConfigMaps("default").Create(ctx, configMap("watched"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	created := time.Now()
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Added {
			t.Errorf("first event %s, want ADDED", ev.Type)
		}
		t.Logf("event through the proxy %s after the create returned", time.Since(created))
	case <-time.After(time.Second):
		t.Fatal("no event through the proxy within 1s of the change")
	}
}

// Revoking the token ends its open watch within 5 s and refuses its next
// request.
func TestRevokingTheTokenEndsItsWatch(t *testing.T) {
	e, _ := cluster(t)
	ctx := context.Background()
	tok, id := e.token(t, "viewer-4", api.Viewer)
	cs := client(t, e.config("c1", tok))
	w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	drained := drain(w)
	if _, err := e.st.RevokeToken(ctx, id, ""); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	select {
	case <-drained:
		t.Logf("watch ended %s after the revocation", time.Since(revoked))
	case <-time.After(5 * time.Second):
		t.Fatal("the watch is still open 5s after its token was revoked")
	}
	// New requests are refused within 5 s of the revocation too.
	var last error
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 5*time.Second-time.Since(revoked), true, func(ctx context.Context) (bool, error) {
		_, last = cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
		return apierrors.IsUnauthorized(last), nil
	})
	if err != nil {
		t.Errorf("requests 5s after the revocation still get %v, want Unauthorized", last)
	}
}

// A team's operator changes what edit allows on its team's cluster (a
// ConfigMap), as kubeopera:operator; when a platform admin lowers the
// membership to viewer, the operator's open watch ends within 5 s and
// the next change is refused by the target's RBAC.
func TestOperatorChangesAndLosingTheRoleEndsItsWatch(t *testing.T) {
	e, _ := cluster(t)
	ctx := context.Background()
	tok, userID := e.memberToken(t, "olga", store.DefaultTeam, api.Operator)
	cs := client(t, e.config("c1", tok))
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, configMap("from-operator"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("the team's operator creates a ConfigMap: %v", err)
	}
	w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	drained := drain(w)
	if err := e.st.SetMember(ctx, store.TeamMember{Team: store.DefaultTeam, UserID: userID, Role: api.Viewer, Source: store.MemberSourceLocal}); err != nil {
		t.Fatal(err)
	}
	lowered := time.Now()
	select {
	case <-drained:
		t.Logf("watch ended %s after the role went down", time.Since(lowered))
	case <-time.After(5 * time.Second):
		t.Fatal("the operator's watch is still open 5s after the role went down to viewer")
	}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 5*time.Second, true, func(ctx context.Context) (bool, error) {
		_, last = cs.CoreV1().ConfigMaps("default").Create(ctx, configMap("after-lowering"), metav1.CreateOptions{})
		return apierrors.IsForbidden(last), nil
	})
	if err != nil {
		t.Errorf("a create after the role went down: %v, want Forbidden by the target's RBAC", last)
	}
}

// A viewer may not reach inside the cluster through a pod's, service's or
// node's proxy subresource; the proxy refuses before dialling anything.
func TestViewerIsRefusedProxySubresources(t *testing.T) {
	e, _ := cluster(t)
	tok, _ := e.token(t, "viewer-5", api.Viewer)
	rc := client(t, e.config("c1", tok)).CoreV1().RESTClient()
	for _, path := range []string{"/api/v1/namespaces/default/pods/web/proxy/", "/api/v1/namespaces/default/services/web:80/proxy/x",
		"/api/v1/nodes/n1/proxy/metrics"} {
		err := rc.Get().AbsPath(path).Do(context.Background()).Error()
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "only for platform admins") {
			t.Errorf("GET %s: %v, want the proxy's Forbidden", path, err)
		}
	}
}

// Reads are counted per user and cluster and flushed as one audit event
// each, not one per request.
func TestReadsAreCountedNotLoggedOneByOne(t *testing.T) {
	e, _ := cluster(t)
	ctx := context.Background()
	tok, _ := e.token(t, "viewer-6", api.Viewer)
	cs := client(t, e.config("c1", tok))
	for range 5 {
		if _, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e.stop() // flushes the counts
	events, err := e.st.ListAuditEvents(ctx, store.AuditFilter{Actor: "token:viewer-6", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].Method != k8sproxy.ReadsMethod || !strings.Contains(events[0].Route, "reads=5 ") {
		t.Errorf("events %+v, want one READS event counting 5", events)
	}
}

// drain reads w's events until it ends, and closes the channel it
// returns then.
func drain(w watch.Interface) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		for range w.ResultChan() {
		}
		close(done)
	}()
	return done
}
