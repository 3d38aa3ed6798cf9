package federation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestMonthlyCost(t *testing.T) {
	p := &Pricing{Currency: "USD", HoursPerMonth: 730, Prices: map[string]float64{
		"t3.medium": 0.0416,
		"m5.large":  0.096,
	}}
	tests := []struct {
		name         string
		nodes        []corev1.Node
		wantCost     float64
		wantUnpriced int
	}{
		{
			name:     "known types are priced at hourly times hours per month",
			nodes:    []corev1.Node{node("a", true, typed("t3.medium")), node("b", true, typed("m5.large"))},
			wantCost: (0.0416 + 0.096) * 730,
		},
		{
			name:     "not-ready nodes are still billed",
			nodes:    []corev1.Node{node("a", false, typed("m5.large"))},
			wantCost: 0.096 * 730,
		},
		{
			name:         "an unknown type is counted unpriced, not guessed",
			nodes:        []corev1.Node{node("a", true, typed("t3.medium")), node("b", true, typed("x9.huge"))},
			wantCost:     0.0416 * 730,
			wantUnpriced: 1,
		},
		{
			name:         "a node without an instance-type label is counted unpriced",
			nodes:        []corev1.Node{node("a", true, nil), node("b", true, map[string]string{"zone": "a"})},
			wantUnpriced: 2,
		},
		{
			name:     "the beta label is used when the GA label is missing",
			nodes:    []corev1.Node{node("a", true, map[string]string{betaInstanceTypeLabel: "m5.large"})},
			wantCost: 0.096 * 730,
		},
		{
			name: "the GA label wins over the beta label",
			nodes: []corev1.Node{node("a", true, map[string]string{
				instanceTypeLabel: "t3.medium", betaInstanceTypeLabel: "m5.large",
			})},
			wantCost: 0.0416 * 730,
		},
		{
			name:     "no nodes cost nothing",
			wantCost: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cost, unpriced := p.MonthlyCost(tt.nodes)
			if !near(cost, tt.wantCost) || unpriced != tt.wantUnpriced {
				t.Errorf("MonthlyCost = (%v, %d), want (%v, %d)", cost, unpriced, tt.wantCost, tt.wantUnpriced)
			}
		})
	}
}
