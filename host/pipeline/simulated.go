package pipeline

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
)

// kwok's own node markers, as its node template (kwokctl's
// kustomize/kwokctl/resource/node.yaml) writes them: kwok manages the
// nodes carrying the annotation, and labels them type=kwok.
const (
	kwokNodeAnnotation = "kwok.x-k8s.io/node"
	kwokTypeLabel      = "type"
	kwokTypeValue      = "kwok"
)

// errNoEndpoints: the installed server's Service has no ready endpoint yet,
// so its service proxy would answer 503 "no endpoints available".
var errNoEndpoints = errors.New("no ready endpoints")

// isKwokNode reports whether n is a node kwok simulates: its pods have
// made-up addresses that exist on no network.
func isKwokNode(n *corev1.Node) bool {
	_, managed := n.Annotations[kwokNodeAnnotation]
	return managed || n.Labels[kwokTypeLabel] == kwokTypeValue
}

// simulatedServerNode returns the name of a kwok node that runs a ready
// endpoint of the installed KubeOpera server's Service, or "" when none
// does. It only reads the EndpointSlices and Nodes: the point is to learn,
// without dialling, whether the service proxy would dial an address that
// exists nowhere. errNoEndpoints when the Service has no ready endpoint.
func simulatedServerNode(ctx context.Context, c client.Reader) (string, error) {
	service := gitops.NamespaceSystem + "/" + gitops.ServerName
	var slices discoveryv1.EndpointSliceList
	if err := c.List(ctx, &slices, client.InNamespace(gitops.NamespaceSystem),
		client.MatchingLabels{discoveryv1.LabelServiceName: gitops.ServerName}); err != nil {
		return "", fmt.Errorf("list the EndpointSlices of Service %s: %w", service, err)
	}
	ready, nodes := 0, map[string]bool{}
	for _, s := range slices.Items {
		for _, ep := range s.Endpoints {
			if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
				continue
			}
			ready++
			if ep.NodeName != nil && *ep.NodeName != "" {
				nodes[*ep.NodeName] = true
			}
		}
	}
	if ready == 0 {
		return "", fmt.Errorf("%w for Service %s yet (%d EndpointSlices)", errNoEndpoints, service, len(slices.Items))
	}
	for name := range nodes {
		var n corev1.Node
		err := c.Get(ctx, client.ObjectKey{Name: name}, &n)
		if apierrors.IsNotFound(err) {
			continue // deleted since: its endpoint goes too
		}
		if err != nil {
			return "", fmt.Errorf("read node %s of Service %s's endpoints: %w", name, service, err)
		}
		if isKwokNode(&n) {
			return name, nil
		}
	}
	return "", nil
}
