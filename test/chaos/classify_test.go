package chaos

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// outcome is what became of one request by the end of its round.
type outcome string

// The outcomes. The first four are fine; the last four fail the test.
const (
	outReady      outcome = "Ready"
	outFailed     outcome = "Failed"     // with a reason a person can act on
	outTornDown   outcome = "TornDown"   // row, HostCluster, processes and directory gone
	outNotCreated outcome = "NotCreated" // the request got no 202 and nothing of it remains
	outStuck      outcome = "stuck"
	outLost       outcome = "lost"
	outDuplicated outcome = "duplicated"
	outLeaked     outcome = "leaked"
)

var outcomes = []outcome{outReady, outFailed, outTornDown, outNotCreated, outStuck, outLost, outDuplicated, outLeaked}

func (o outcome) bad() bool {
	return o == outStuck || o == outLost || o == outDuplicated || o == outLeaked
}

// request is one provision or teardown a round sent.
type request struct {
	round  int
	target string // what the round killed
	kind   string // "provision" or "teardown"
	name   string
	id     string // the cluster's ID: a teardown's, or the one a 202 to a provision named
	acked  bool   // answered 202
	answer string // status code or transport error, for the report
}

// row is a clusters row; cluster is what the management cluster and the
// machine hold of one cluster.
type row struct{ id, name, status string }

type world struct {
	rows []row
	hcs  []v1.HostCluster
	// local reports what is left of a local cluster on this machine: its
	// directory exists, and the PIDs of processes that name it.
	local func(id string) (dir bool, pids []int)
	// phase is v1alpha1.DerivePhase, the one rule the server and the
	// controller share.
	phase func(*v1.HostCluster) v1.Phase
}

// classify decides the outcome of r in w, with a detail for the report.
func classify(r request, w world) (outcome, string) {
	ids := map[string]bool{}
	if r.id != "" {
		ids[r.id] = true
	}
	named := 0
	for _, x := range w.rows {
		if x.name == r.name || ids[x.id] {
			ids[x.id] = true
			named++
		}
	}
	hcs := map[string]*v1.HostCluster{}
	for i := range w.hcs {
		hc := &w.hcs[i]
		if hc.Spec.DisplayName == r.name || ids[hc.Name] {
			ids[hc.Name] = true
			hcs[hc.Name] = hc
		}
	}
	switch {
	case len(ids) > 1 || named > 1:
		return outDuplicated, fmt.Sprintf("%d IDs, %d rows, %d HostClusters", len(ids), named, len(hcs))
	case named == 0 && len(hcs) == 0:
		return gone(r, w, keys(ids))
	case named == 0:
		return outStuck, "HostCluster without a row"
	case len(hcs) == 0:
		return outStuck, "row without a HostCluster"
	}
	for _, hc := range hcs {
		switch phase := w.phase(hc); {
		case phase == v1.PhaseReady && r.kind == "teardown" && r.acked:
			return outStuck, "Ready after an accepted teardown"
		case phase == v1.PhaseReady:
			return outReady, ""
		case phase == v1.PhaseFailed && strings.TrimSpace(hc.Status.Message) != "":
			return outFailed, hc.Status.Message
		default:
			return outStuck, fmt.Sprintf("%s: %s", phase, hc.Status.Message)
		}
	}
	panic("unreachable")
}

// gone classifies a request whose cluster has neither row nor HostCluster.
func gone(r request, w world, ids []string) (outcome, string) {
	if r.kind == "provision" && r.acked {
		return outLost, "answered 202, then vanished without a teardown"
	}
	for _, id := range ids {
		if dir, pids := w.local(id); dir || len(pids) > 0 {
			return outLeaked, fmt.Sprintf("cluster %s: directory left %v, processes %v", id, dir, pids)
		}
	}
	if r.kind == "teardown" {
		return outTornDown, ""
	}
	return outNotCreated, r.answer
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// table counts outcomes by kill target, in a fixed order.
type table map[string]map[outcome]int

func (t table) add(target string, o outcome) {
	if t[target] == nil {
		t[target] = map[outcome]int{}
	}
	t[target][o]++
}

func (t table) bad() int {
	n := 0
	for _, row := range t {
		for o, c := range row {
			if o.bad() {
				n += c
			}
		}
	}
	return n
}

func (t table) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "killed\t")
	for _, o := range outcomes {
		fmt.Fprintf(tw, "%s\t", o)
	}
	fmt.Fprintln(tw)
	for _, target := range append(slices.Clone(targets), "end") {
		if t[target] == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t", target)
		for _, o := range outcomes {
			fmt.Fprintf(tw, "%d\t", t[target][o])
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
}

func TestClassifyNamesWhatBecameOfARequest(t *testing.T) {
	hc := func(id, name string, phase v1.Phase, msg string) v1.HostCluster {
		var h v1.HostCluster
		h.Name, h.Spec.DisplayName = id, name
		h.Status.Phase, h.Status.Message = phase, msg
		return h
	}
	nothingLocal := func(string) (bool, []int) { return false, nil }
	dirLeft := func(id string) (bool, []int) { return id == "id-1", nil }
	recorded := func(hc *v1.HostCluster) v1.Phase { return hc.Status.Phase }
	tests := []struct {
		name string
		req  request
		w    world
		want outcome
	}{
		{"a provision with a row and a Ready HostCluster is Ready",
			request{kind: "provision", name: "a", acked: true},
			world{rows: []row{{"id-1", "a", "Ready"}}, hcs: []v1.HostCluster{hc("id-1", "a", v1.PhaseReady, "")}, local: nothingLocal}, outReady},
		{"a Failed cluster with a message is Failed",
			request{kind: "provision", name: "a", acked: true},
			world{rows: []row{{"id-1", "a", "Failed"}}, hcs: []v1.HostCluster{hc("id-1", "a", v1.PhaseFailed, "plugin: boom")}, local: nothingLocal}, outFailed},
		{"a Failed cluster without a message is stuck",
			request{kind: "provision", name: "a", acked: true},
			world{rows: []row{{"id-1", "a", "Failed"}}, hcs: []v1.HostCluster{hc("id-1", "a", v1.PhaseFailed, "")}, local: nothingLocal}, outStuck},
		{"a cluster still installing after the wait is stuck",
			request{kind: "provision", name: "a", acked: true},
			world{rows: []row{{"id-1", "a", "Pending"}}, hcs: []v1.HostCluster{hc("id-1", "a", v1.PhaseInstallingKubeOpera, "")}, local: nothingLocal}, outStuck},
		{"a row without its HostCluster is stuck",
			request{kind: "provision", name: "a", acked: true},
			world{rows: []row{{"id-1", "a", "Pending"}}, local: nothingLocal}, outStuck},
		{"an answered provision with nothing left is lost",
			request{kind: "provision", name: "a", acked: true},
			world{local: nothingLocal}, outLost},
		{"an unanswered provision with nothing left was not created",
			request{kind: "provision", name: "a", answer: "connection reset"},
			world{local: nothingLocal}, outNotCreated},
		{"two rows for one name are duplicated",
			request{kind: "provision", name: "a", acked: true},
			world{rows: []row{{"id-1", "a", "Ready"}, {"id-2", "a", "Ready"}}, hcs: []v1.HostCluster{hc("id-1", "a", v1.PhaseReady, "")}, local: nothingLocal}, outDuplicated},
		{"two HostClusters for one name are duplicated",
			request{kind: "provision", name: "a", acked: true},
			world{rows: []row{{"id-1", "a", "Ready"}}, hcs: []v1.HostCluster{hc("id-1", "a", v1.PhaseReady, ""), hc("id-2", "a", v1.PhaseReady, "")}, local: nothingLocal}, outDuplicated},
		{"a teardown that removed everything tore down",
			request{kind: "teardown", name: "a", id: "id-1", acked: true},
			world{local: nothingLocal}, outTornDown},
		{"a teardown that left the cluster's directory leaked",
			request{kind: "teardown", name: "a", id: "id-1", acked: true},
			world{local: dirLeft}, outLeaked},
		{"an accepted teardown whose cluster is still Ready is stuck",
			request{kind: "teardown", name: "a", id: "id-1", acked: true},
			world{rows: []row{{"id-1", "a", "Ready"}}, hcs: []v1.HostCluster{hc("id-1", "a", v1.PhaseReady, "")}, local: nothingLocal}, outStuck},
		{"an unanswered teardown whose cluster is still Ready kept it",
			request{kind: "teardown", name: "a", id: "id-1"},
			world{rows: []row{{"id-1", "a", "Ready"}}, hcs: []v1.HostCluster{hc("id-1", "a", v1.PhaseReady, "")}, local: nothingLocal}, outReady},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.w.phase = recorded
			if got, detail := classify(tt.req, tt.w); got != tt.want {
				t.Fatalf("classify = %s (%s), want %s", got, detail, tt.want)
			}
		})
	}
}
