package api

import (
	"context"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// The wizard's estimate comes from the plugin (the real aws-eks binary,
// over gRPC): hourly lines that add up, the month at 730 hours, the price
// table's date and source. An input the table cannot price is a 400 on
// that input; an unknown plugin a 404; a plugin without an estimate a 409,
// never a figure.
func TestEstimateComesFromThePlugin(t *testing.T) {
	e := newEnv(t, envOpts{})
	code, body := e.do(http.MethodPost, "/api/v1/providers/aws-eks/estimate", e.admin,
		map[string]any{"inputs": map[string]string{"region": "us-east-1", "nodeCount": "3", "instanceType": "t3.large"}})
	mustStatus(t, "estimate of aws-eks", code, body, 200)
	est := decode[estimateView](t, body)
	var sum float64
	for _, l := range est.Lines {
		sum += l.Hourly
	}
	if est.Currency != "USD" || est.PriceDate == "" || est.Source == "" || len(est.Excludes) == 0 ||
		math.Abs(sum-est.Hourly) > 1e-5 || math.Abs(est.Monthly-est.Hourly*730) > 1e-3 {
		t.Errorf("estimate = %s; want USD lines that add up to hourly, 730 hours a month, a date, a source, what it leaves out", body)
	}
	if !strings.Contains(string(body), `"item":"t3.large nodes","unit":"instance","quantity":3,`) {
		t.Errorf("estimate = %s; want 3 t3.large nodes among its lines", body)
	}

	code, body = e.do(http.MethodPost, "/api/v1/providers/aws-vanilla/estimate", e.admin,
		map[string]any{"inputs": map[string]string{"region": "eu-north-1"}})
	mustStatus(t, "estimate in a region the table lacks", code, body, 400)
	if p := decode[Problem](t, body); len(p.Fields) != 1 || p.Fields[0].Field != "inputs.region" || !strings.Contains(p.Fields[0].Message, "us-east-1") {
		t.Errorf("problem = %s; want one on inputs.region naming the regions the table has", body)
	}
	code, body = e.do(http.MethodPost, "/api/v1/providers/no-such/estimate", e.admin, map[string]any{"inputs": map[string]string{}})
	mustStatus(t, "estimate of an unknown plugin", code, body, 404)
	code, body = e.do(http.MethodPost, "/api/v1/providers/gcp-stub/estimate", e.admin, map[string]any{"inputs": map[string]string{}})
	mustStatus(t, "estimate of a plugin without one", code, body, 409)
	if !strings.Contains(string(body), "gives no cost estimate") {
		t.Errorf("409 = %s; want it to say the plugin gives no estimate", body)
	}
	// A question, not a change: none of the four is in the audit log.
	events, err := e.st.ListAuditEvents(context.Background(), store.AuditFilter{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if strings.HasSuffix(ev.Route, "/estimate") {
			t.Errorf("an estimate was audited: %+v", ev)
		}
	}
}

// Any signed-in member may ask (the estimate names no team and shows only
// the plugin's price table); from the dashboard's session, as every POST,
// only with the session's CSRF token.
func TestEstimateFromASessionNeedsTheCSRFToken(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{})
	e.user("pricer", Member)
	code, cookie, csrf := e.signIn("pricer", "correct-horse-battery")
	mustStatus(t, "sign in", code, nil, http.StatusCreated)
	const body = `{"inputs":{"region":"us-east-1"}}`
	code, resp := e.withSession(http.MethodPost, "/api/v1/providers/aws-eks/estimate", cookie, "", body)
	mustStatus(t, "estimate without the CSRF token", code, resp, http.StatusForbidden)
	code, resp = e.withSession(http.MethodPost, "/api/v1/providers/aws-eks/estimate", cookie, csrf, body)
	mustStatus(t, "estimate by a member with the CSRF token", code, resp, http.StatusOK)
}
