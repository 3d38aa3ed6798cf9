package pipeline

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// impersonateAdvice checks, for a Ready cluster's status message, that
// KubeOpera's credential for the cluster may impersonate users and groups,
// which the server's kubectl proxy needs on every request (a connected
// kubeconfig may lack it). It returns "" when it may, else what is wrong
// and how to fix it.
func impersonateAdvice(ctx context.Context, cs kubernetes.Interface) string {
	var missing []string
	for _, resource := range []string{"users", "groups"} {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "impersonate", Resource: resource}}}
		got, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return fmt.Sprintf("could not check whether KubeOpera's credential may impersonate (kubectl through KubeOpera needs it): %v", err)
		}
		if !got.Status.Allowed {
			missing = append(missing, resource)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("kubectl through KubeOpera will be refused on this cluster: KubeOpera's credential may not impersonate %s; "+
		"grant its user the 'impersonate' verb on users and groups (for example bind it to cluster-admin) and the proxy works",
		strings.Join(missing, " and "))
}
