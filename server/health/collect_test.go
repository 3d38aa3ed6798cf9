package health

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// fakeAPI serves the few API server paths Collect reads: two nodes of 4 CPU
// and 8Gi, pods in two pages, /readyz, and optionally metrics.k8s.io.
type fakeAPI struct {
	readyzStatus  int
	readyzBody    string
	metricsStatus int // of the metrics.k8s.io/v1beta1 discovery document; 0 is 404
	podsStatus    int // 0 is 200
}

func (f fakeAPI) start(t *testing.T) kubernetes.Interface {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/nodes", func(w http.ResponseWriter, r *http.Request) {
		alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")}
		list := corev1.NodeList{TypeMeta: metav1.TypeMeta{Kind: "NodeList", APIVersion: "v1"}}
		for _, name := range []string{"n1", "n2"} {
			n := readyNode(name)
			n.Status.Allocatable = alloc
			list.Items = append(list.Items, n)
		}
		writeJSON(w, http.StatusOK, list)
	})
	mux.HandleFunc("GET /api/v1/pods", f.pods)
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("verbose") != "true" {
			http.Error(w, "want verbose", http.StatusBadRequest)
			return
		}
		w.WriteHeader(f.readyzStatus)
		_, _ = w.Write([]byte(f.readyzBody))
	})
	mux.HandleFunc("GET /apis/metrics.k8s.io/v1beta1", func(w http.ResponseWriter, r *http.Request) {
		if f.metricsStatus == 0 {
			writeJSON(w, http.StatusNotFound, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status: metav1.StatusFailure, Reason: metav1.StatusReasonNotFound, Code: http.StatusNotFound})
			return
		}
		writeJSON(w, f.metricsStatus, metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: "metrics.k8s.io/v1beta1", APIResources: []metav1.APIResource{{Name: "nodes", Kind: "NodeMetrics"}}})
	})
	mux.HandleFunc("GET /apis/metrics.k8s.io/v1beta1/nodes", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, metricsv1beta1.NodeMetricsList{Items: []metricsv1beta1.NodeMetrics{
			{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Usage: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("1500m"), corev1.ResourceMemory: resource.MustParse("3Gi")}},
			{ObjectMeta: metav1.ObjectMeta{Name: "n2"}, Usage: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")}},
		}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL,
		ContentConfig: rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"}})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// pods serves two pages: a running pod requesting 1 CPU and 2Gi and a
// succeeded one, then a ready kube-scheduler static pod.
func (f fakeAPI) pods(w http.ResponseWriter, r *http.Request) {
	if f.podsStatus != 0 {
		writeJSON(w, f.podsStatus, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status: metav1.StatusFailure, Reason: metav1.StatusReasonForbidden, Code: int32(f.podsStatus)})
		return
	}
	list := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}}
	if r.URL.Query().Get("limit") != "500" {
		http.Error(w, "want limit=500", http.StatusBadRequest)
		return
	}
	switch r.URL.Query().Get("continue") {
	case "":
		web := pod("web", func(p *corev1.Pod) {
			p.Spec.NodeName = "n1"
			p.Spec.Containers[0].Resources = requests("1", "2Gi")
		})
		done := pod("done", func(p *corev1.Pod) {
			p.Spec.NodeName = "n2"
			p.Spec.Containers[0].Resources = requests("3", "6Gi")
			p.Status.Phase = corev1.PodSucceeded
		})
		list.Items, list.Continue = []corev1.Pod{web, done}, "page-2"
	case "page-2":
		list.Items = []corev1.Pod{staticPod("kube-system", "kube-scheduler-n1", ComponentScheduler, true)}
	}
	writeJSON(w, http.StatusOK, list)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

const readyzOK = "[+]ping ok\n[+]etcd ok\n[+]informer-sync ok\nreadyz check passed\n"

func TestCollect(t *testing.T) {
	for _, tc := range []struct {
		name      string
		api       fakeAPI
		source    string
		cpu, mem  float64
		cp        []health
		cpMessage string // in the message of the first unhealthy component
	}{
		{name: "served metrics.k8s.io gives measured use",
			api:    fakeAPI{readyzStatus: 200, readyzBody: readyzOK, metricsStatus: 200},
			source: UsageFromMetrics, cpu: 0.25, mem: 0.25,
			cp: []health{{ComponentAPIServer, true}, {ComponentEtcd, true}, {ComponentScheduler, true}}},
		{name: "without metrics.k8s.io the running pods' requests are the use",
			api:    fakeAPI{readyzStatus: 200, readyzBody: readyzOK},
			source: UsageFromRequests, cpu: 0.125, mem: 0.125,
			cp: []health{{ComponentAPIServer, true}, {ComponentEtcd, true}, {ComponentScheduler, true}}},
		{name: "an unavailable metrics API falls back to requests",
			api:    fakeAPI{readyzStatus: 200, readyzBody: readyzOK, metricsStatus: http.StatusServiceUnavailable},
			source: UsageFromRequests, cpu: 0.125, mem: 0.125,
			cp: []health{{ComponentAPIServer, true}, {ComponentEtcd, true}, {ComponentScheduler, true}}},
		{name: "a failing etcd check in /readyz makes etcd unhealthy",
			api: fakeAPI{readyzStatus: 500,
				readyzBody: "[+]ping ok\n[-]etcd failed: reason withheld\n[+]informer-sync ok\nreadyz check failed\n"},
			source: UsageFromRequests, cpu: 0.125, mem: 0.125,
			cp:        []health{{ComponentAPIServer, true}, {ComponentEtcd, false}, {ComponentScheduler, true}},
			cpMessage: "[-]etcd failed"},
		{name: "a /readyz without checks makes the API server unhealthy",
			api:    fakeAPI{readyzStatus: 503, readyzBody: "service unavailable"},
			source: UsageFromRequests, cpu: 0.125, mem: 0.125,
			cp:        []health{{ComponentAPIServer, false}, {ComponentScheduler, true}},
			cpMessage: "/readyz failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Collect(context.Background(), tc.api.start(t))
			if err != nil {
				t.Fatal(err)
			}
			if len(in.Nodes) != 2 || len(in.Pods) != 3 {
				t.Errorf("collected %d nodes and %d pods, want 2 and 3 (both pages)", len(in.Nodes), len(in.Pods))
			}
			if in.Usage != (Usage{tc.cpu, tc.mem, tc.source}) {
				t.Errorf("usage %+v, want cpu %v memory %v from %s", in.Usage, tc.cpu, tc.mem, tc.source)
			}
			if h := healths(in.ControlPlane); !slices.Equal(h, tc.cp) {
				t.Errorf("control plane %v, want %v", h, tc.cp)
			}
			for _, c := range in.ControlPlane {
				if !c.Healthy && !strings.Contains(c.Message, tc.cpMessage) {
					t.Errorf("%s message %q does not say %q", c.Name, c.Message, tc.cpMessage)
				}
			}
		})
	}
}

func TestCollectFailsWhenPodsCannotBeListed(t *testing.T) {
	_, err := Collect(context.Background(), fakeAPI{readyzStatus: 200, readyzBody: readyzOK, podsStatus: http.StatusForbidden}.start(t))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "list pods") {
		t.Errorf("err = %v, want a forbidden error saying it was listing pods", err)
	}
}

func TestAssessScoresWhatItCollects(t *testing.T) {
	got, err := Assess(context.Background(), fakeAPI{readyzStatus: 503, readyzBody: "service unavailable"}.start(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []hit{{RuleControlPlaneDegraded, "control-plane", 15}, {RuleComponentUnhealthy, ComponentAPIServer, 8}}
	if h := hits(t, got.Findings); got.Score != 77 || got.Badge != BadgeAmber || !slices.Equal(h, want) {
		t.Errorf("score %v %s with %v, want 77 amber with %v", got.Score, got.Badge, h, want)
	}
	if got.UsageSource != UsageFromRequests || got.CPUPercent != 12.5 || got.MemoryPercent != 12.5 {
		t.Errorf("usage %v%%/%v%% from %q, want 12.5%%/12.5%% from requests", got.CPUPercent, got.MemoryPercent, got.UsageSource)
	}
}

// A fake clientset has no REST client for /readyz: the API server and etcd
// go unreported rather than failing Collect, so handler tests can use one.
func TestCollectWithFakeClientset(t *testing.T) {
	n := readyNode("n1")
	n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")}
	web := pod("web", func(p *corev1.Pod) {
		p.Spec.NodeName = "n1"
		p.Spec.Containers[0].Resources = requests("1", "2Gi")
	})
	in, err := Collect(context.Background(), fake.NewClientset(&n, &web))
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Nodes) != 1 || len(in.Pods) != 1 || len(in.ControlPlane) != 0 {
		t.Errorf("collected %d nodes, %d pods, control plane %+v; want 1, 1, none", len(in.Nodes), len(in.Pods), in.ControlPlane)
	}
	if in.Usage != (Usage{0.25, 0.25, UsageFromRequests}) {
		t.Errorf("usage %+v, want a quarter of each from requests", in.Usage)
	}
}
