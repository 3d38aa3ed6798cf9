package api

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// GET /audit?since=&until= keeps the events of a time window: since is
// inclusive, until is not, any zone is understood; a time that is not
// RFC 3339 is refused naming the parameter.
func TestAuditTimeWindow(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, label := range []string{"one", "two", "three"} {
		code, body := e.do(http.MethodPost, "/api/v1/credentials", e.admin, map[string]string{
			"label": label, "kind": "access_key", "accessKeyId": testAccessKeyID, "secretAccessKey": testSecretKey})
		mustStatus(t, "credential "+label, code, body, 201)
	}
	code, body := e.do(http.MethodGet, "/api/v1/audit", e.admin, nil)
	all := decode[auditPage](t, body)
	if code != 200 || len(all.Items) != 3 {
		t.Fatalf("all events: %d %s", code, body)
	}
	newest, middle := all.Items[0].At, all.Items[1].At
	if !newest.After(middle) {
		t.Fatalf("two events share a time (%s); the window cannot tell them apart", newest)
	}
	east := time.FixedZone("UTC+3", 3*3600)
	at := func(t time.Time) string { return url.QueryEscape(t.In(east).Format(time.RFC3339Nano)) }
	cases := []struct {
		name, query string
		want        int
	}{
		{"since the newest event keeps it alone", "since=" + at(newest), 1},
		{"until the newest event leaves it out", "until=" + at(newest), 2},
		{"since the middle until the newest keeps the middle one", "since=" + at(middle) + "&until=" + at(newest), 1},
		{"a window after every event is empty", "since=" + at(newest.Add(time.Hour)), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := e.do(http.MethodGet, "/api/v1/audit?"+c.query, e.admin, nil)
			if p := decode[auditPage](t, body); code != 200 || len(p.Items) != c.want {
				t.Errorf("%s: %d, %d events (%s); want %d", c.query, code, len(p.Items), body, c.want)
			}
		})
	}
	for _, name := range []string{"since", "until"} {
		code, body := e.do(http.MethodGet, "/api/v1/audit?"+name+"=yesterday", e.admin, nil)
		if code != 400 || !strings.Contains(string(body), `"`+name+`"`) || !strings.Contains(string(body), "RFC 3339") {
			t.Errorf("%s=yesterday: %d %s; want 400 naming %s and the form", name, code, body, name)
		}
	}
}
