package k8sproxy_test

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// A team's operator scales a Deployment through the proxy and a viewer is
// refused the same scale by the target's RBAC; what each may do, asked
// through the proxy as `kubectl auth can-i --list` asks it (a
// SelfSubjectRulesReview), is the role KubeOpera mapped them to.
func TestOperatorScalesADeploymentAndRulesShowTheMappedRole(t *testing.T) {
	e, sb := cluster(t)
	ctx := context.Background()
	labels := map[string]string{"app": "scaled"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "scaled", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.invalid/none:1"}}}}},
	}
	if _, err := sb.Client.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	opTok, _ := e.memberToken(t, "otto", store.DefaultTeam, api.Operator)
	viewTok, _ := e.memberToken(t, "vera", store.DefaultTeam, api.Viewer)
	operator, viewer := client(t, e.config("c1", opTok)), client(t, e.config("c1", viewTok))

	scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "scaled", Namespace: "default"}, Spec: autoscalingv1.ScaleSpec{Replicas: 3}}
	if _, err := viewer.AppsV1().Deployments("default").UpdateScale(ctx, "scaled", scale, metav1.UpdateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("a viewer scales the Deployment: %v, want Forbidden by the target's RBAC", err)
	}
	if _, err := operator.AppsV1().Deployments("default").UpdateScale(ctx, "scaled", scale, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("the team's operator scales the Deployment: %v", err)
	}
	if got, err := sb.Client.AppsV1().Deployments("default").Get(ctx, "scaled", metav1.GetOptions{}); err != nil || *got.Spec.Replicas != 3 {
		t.Errorf("the Deployment on the target after the operator's scale: %v, %v; want 3 replicas", got.Spec.Replicas, err)
	}

	for _, tc := range []struct {
		who           string
		cs            kubernetes.Interface
		mayScale      bool
		mayListPods   bool
		mayEditSecret bool
	}{
		{"viewer", viewer, false, true, false},
		{"operator", operator, true, true, true},
	} {
		rules := rulesIn(ctx, t, tc.cs, "default")
		for _, c := range []struct {
			what           string
			resource, verb string
			want           bool
		}{
			{"patch deployments/scale", "deployments/scale", "patch", tc.mayScale},
			{"list pods", "pods", "list", tc.mayListPods},
			{"update secrets", "secrets", "update", tc.mayEditSecret},
		} {
			if got := allows(rules, c.resource, c.verb); got != c.want {
				t.Errorf("the %s's rules through the proxy: %s = %v, want %v", tc.who, c.what, got, c.want)
			}
		}
	}
}

// rulesIn is what `kubectl auth can-i --list -n ns` reads.
func rulesIn(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) []authorizationv1.ResourceRule {
	t.Helper()
	r, err := cs.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx,
		&authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("SelfSubjectRulesReview through the proxy: %v", err)
	}
	return r.Status.ResourceRules
}

// allows reports whether a rule grants verb on resource (core or apps).
func allows(rules []authorizationv1.ResourceRule, resource, verb string) bool {
	for _, r := range rules {
		if (slices.Contains(r.Verbs, verb) || slices.Contains(r.Verbs, "*")) &&
			(slices.Contains(r.Resources, resource) || slices.Contains(r.Resources, "*")) {
			return true
		}
	}
	return false
}
