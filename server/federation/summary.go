package federation

import (
	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/server/health"
)

// summarize totals rows; only reachable rows contribute usage and nodes.
func summarize(rows []Row, currency string) Summary {
	s := Summary{Clusters: len(rows), Currency: currency}
	reachable := 0
	cpu := 0.0
	for _, r := range rows {
		if r.Status == string(v1alpha1.PhaseReady) {
			s.Ready++
		}
		if !r.Reachable {
			continue
		}
		reachable++
		if r.Badge == health.BadgeGreen {
			s.Healthy++
		}
		s.NodesReady += r.NodesReady
		s.NodesTotal += r.NodesTotal
		cpu += r.CPUPercent
		s.MonthlyCost += r.MonthlyCost
	}
	if reachable > 0 {
		s.AverageCPUPercent = cpu / float64(reachable)
	}
	return s
}

// Only is o narrowed to the clusters keep accepts (by ID), its summary
// computed again from them: the overview of a caller who may see only
// some clusters.
func (o Overview) Only(keep func(id string) bool) Overview {
	rows := make([]Row, 0, len(o.Clusters))
	for _, r := range o.Clusters {
		if keep(r.ID) {
			rows = append(rows, r)
		}
	}
	return Overview{Summary: summarize(rows, o.Summary.Currency), Clusters: rows}
}
