package fluxrun

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
)

// A source outside loopback never leaves the machine: source-controller
// sends it to the closed loopback proxy, and the source says so.
func TestSourcesBeyondLoopbackGoToTheOfflineProxy(t *testing.T) {
	ctx := context.Background()
	if _, err := Start(ctx, t, sb.KubeconfigPath); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(sb.Config)
	if err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "gitrepositories"}
	repo := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
		"metadata": map[string]any{"name": "outside", "namespace": Namespace},
		"spec": map[string]any{"url": "https://github.com/kubernetes-sigs/gateway-api", "interval": "1h",
			"ref": map[string]any{"tag": "v1.6.3"}},
	}}
	if _, err := dyn.Resource(gvr).Namespace(Namespace).Create(ctx, repo, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var last string
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := dyn.Resource(gvr).Namespace(Namespace).Get(ctx, "outside", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Ready" {
				last, _ = m["message"].(string)
				return m["status"] == "False" && last != "", nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the outside GitRepository never failed (last message %q): %v", last, err)
	}
	if !strings.Contains(last, "proxyconnect") || !strings.Contains(last, "127.0.0.1:1") {
		t.Errorf("the outside fetch failed without going through the offline proxy: %q", last)
	}
}
