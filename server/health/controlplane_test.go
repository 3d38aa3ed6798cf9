package health

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// health is a Component without its Message.
type health struct {
	Name    string
	Healthy bool
}

func healths(cs []Component) []health {
	var out []health
	for _, c := range cs {
		out = append(out, health{c.Name, c.Healthy})
	}
	return out
}

func TestJudgeReadyz(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []health
		message    string // in the message of the first unhealthy component
	}{
		{name: "all checks passing make API server and etcd healthy",
			body: "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]etcd-readiness ok\nreadyz check passed\n",
			want: []health{{ComponentAPIServer, true}, {ComponentEtcd, true}}},
		{name: "a failing etcd check makes etcd unhealthy, not the API server",
			body: "[+]ping ok\n[-]etcd failed: reason withheld\n[+]etcd-readiness ok\nreadyz check failed\n",
			want: []health{{ComponentAPIServer, true}, {ComponentEtcd, false}}, message: "[-]etcd failed: reason withheld"},
		{name: "a failing etcd-readiness check counts for etcd",
			body: "[+]ping ok\n[+]etcd ok\n[-]etcd-readiness failed: reason withheld\n",
			want: []health{{ComponentAPIServer, true}, {ComponentEtcd, false}}, message: "etcd-readiness"},
		{name: "any other failing check makes the API server unhealthy",
			body: "[+]ping ok\n[+]etcd ok\n[-]poststarthook/start-apiextensions-informers failed: not finished\n",
			want: []health{{ComponentAPIServer, false}, {ComponentEtcd, true}}, message: "start-apiextensions-informers"},
		{name: "without an etcd check etcd is not reported",
			body: "[+]ping ok\n[+]informer-sync ok\n",
			want: []health{{ComponentAPIServer, true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := judgeReadyz(parseReadyz(tc.body))
			if h := healths(got); !slices.Equal(h, tc.want) {
				t.Fatalf("components %v, want %v", h, tc.want)
			}
			for _, c := range got {
				if !c.Healthy && !strings.Contains(c.Message, tc.message) {
					t.Errorf("%s message %q does not name %q", c.Name, c.Message, tc.message)
				}
			}
		})
	}
}

func TestParseReadyzIgnoresOtherLines(t *testing.T) {
	if got := parseReadyz("ok"); len(got) != 0 {
		t.Errorf("plain %q parsed into checks %v", "ok", got)
	}
	if got := parseReadyz("  [+]ping ok\r\n"); len(got) != 1 || got[0].name != "ping" || !got[0].ok {
		t.Errorf("indented CRLF line parsed into %+v, want one passing check ping", got)
	}
}

func staticPod(ns, name, component string, ready bool) corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"component": component}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
	}
}

func TestStaticPodComponents(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pods    []corev1.Pod
		want    []health
		message string
	}{
		{name: "no static pods (a managed control plane) report nothing",
			pods: []corev1.Pod{pod("web")}},
		{name: "a ready scheduler is healthy and an absent controller manager is not reported",
			pods: []corev1.Pod{staticPod("kube-system", "kube-scheduler-cp1", ComponentScheduler, true)},
			want: []health{{ComponentScheduler, true}}},
		{name: "one not-ready pod of several makes the component unhealthy",
			pods: []corev1.Pod{
				staticPod("kube-system", "kube-controller-manager-cp1", ComponentControllerManager, true),
				staticPod("kube-system", "kube-controller-manager-cp2", ComponentControllerManager, false),
				staticPod("kube-system", "kube-scheduler-cp1", ComponentScheduler, true)},
			want:    []health{{ComponentScheduler, true}, {ComponentControllerManager, false}},
			message: "1 of 2 pods ready; not ready: kube-controller-manager-cp2"},
		{name: "a pod with the label outside kube-system is not the control plane",
			pods: []corev1.Pod{staticPod("default", "kube-scheduler-fake", ComponentScheduler, false)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := staticPodComponents(tc.pods)
			if h := healths(got); !slices.Equal(h, tc.want) {
				t.Fatalf("components %v, want %v", h, tc.want)
			}
			for _, c := range got {
				if !c.Healthy && !strings.Contains(c.Message, tc.message) {
					t.Errorf("%s message %q does not say %q", c.Name, c.Message, tc.message)
				}
			}
		})
	}
}
