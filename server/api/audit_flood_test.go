package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// TestAnonymousNoiseIsCountedNotStored sends 600 unauthenticated mutating
// requests, to unknown routes and to known ones, with 3.8 KB IDs: none may
// add an audit row.
func TestAnonymousNoiseIsCountedNotStored(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		rows0, bytes0, err := e.st.AuditSize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		long := strings.Repeat("A", 3800)
		paths := []string{"/api/v1/nothing/" + long, "/api/v1/clusters/" + long, "/" + long, "/api/v1/credentials/" + long}
		methods := []string{http.MethodPost, http.MethodDelete, http.MethodPatch, http.MethodPut}
		for i := range 600 {
			req := httptest.NewRequest(methods[i%len(methods)], paths[(i/len(methods))%len(paths)], nil)
			req.Header.Set("X-Request-Id", fmt.Sprintf("client-chosen-%d", i))
			resp, err := e.app.Test(req, 30000)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		rows1, bytes1, err := e.st.AuditSize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("600 anonymous requests added %d audit rows, %d bytes of text", rows1-rows0, bytes1-bytes0)
		if rows1 != rows0 {
			t.Errorf("600 anonymous requests added %d audit rows (%d bytes); want none", rows1-rows0, bytes1-bytes0)
		}
		counts, err := e.st.AuditCounts(ctx, time.Now().Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		for _, c := range counts {
			total += c.Count
		}
		if total != 600 || len(counts) > 4*len(methods) {
			t.Errorf("counted %d unsigned requests in %d rows (%+v); want 600 in a few", total, len(counts), counts)
		}
	})
}

// A failed sign-in on a real account is recorded against that account by
// an anonymous actor (whoever sent it is nobody known), a name no account
// has only counted, a success with the user as actor; a refusal past the
// limit only counted. A CSRF refusal keeps the signed-in user. The
// client's X-Request-Id is never what is stored.
func TestAuditRecordsWhoSignedInAndWhoWasRefused(t *testing.T) {
	eachSessionStore(t, SessionOptions{PerAccount: 1}, func(t *testing.T, e *sessionEnv) {
		ctx := context.Background()
		e.user("ops", PlatformAdmin)
		e.signIn("ops", "wrong-password-here", "X-Request-Id", "reused-id")
		e.signIn("initial-admin", "wrong-password-here", "X-Forwarded-For", "198.51.100.9") // no such account: counted only
		e.signIn("ops", "wrong-password-here")                                              // 429: counted only
		e.advance(time.Second)                                                              // the account's next attempt, from elsewhere
		e.signIn("ops", "correct-horse-battery", "X-Forwarded-For", "198.51.100.7")
		u, err := e.st.UserByUsername(ctx, "ops")
		if err != nil {
			t.Fatal(err)
		}
		_, cookie, _ := e.signIn("ops", "correct-horse-battery", "X-Forwarded-For", "198.51.100.7")
		e.withSession(http.MethodPost, "/api/v1/credentials", cookie, "", `{"label":"x"}`) // no CSRF token: 403
		rows, err := e.st.ListAuditEvents(ctx, store.AuditFilter{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ev := range rows {
			got = append(got, fmt.Sprintf("%s %s %s %s %d", ev.Method, ev.Route, ev.Target, ev.Actor, ev.Status))
			if ev.RequestID == "reused-id" || ev.RequestID == "" {
				t.Errorf("event %s stored request ID %q; want the server's", ev.Route, ev.RequestID)
			}
		}
		want := []string{
			"POST /api/v1/credentials  ops 403",
			"POST /api/v1/session " + u.ID + " ops 201",
			"POST /api/v1/session " + u.ID + " ops 201",
			"POST /api/v1/session " + u.ID + " anonymous 401",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("audit events\n got %q\nwant %q", got, want)
		}
	})
}

// The HTTP server's own refusals (a body or headers too large) come
// before any middleware: still counted, sent with the security headers,
// and answered as the document says for every route (serverAnswers).
func TestServerRefusalsAreCountedAndCarrySecurityHeaders(t *testing.T) {
	e := newEnv(t, envOpts{})
	addr := e.listen(t)
	for _, tc := range []struct {
		name   string
		send   func() *http.Response
		status int
	}{
		{"body too large", func() *http.Response {
			return announceOversizedBody(t, addr, "/api/v1/credentials", "")
		}, http.StatusRequestEntityTooLarge},
		{"headers too large", func() *http.Response {
			return rawRequest(t, addr, "POST /api/v1/credentials HTTP/1.1\r\nHost: x\r\nX-Padding: "+
				strings.Repeat("p", 16<<10)+"\r\nContent-Length: 0\r\n\r\n")
		}, http.StatusRequestHeaderFieldsTooLarge},
	} {
		resp := tc.send()
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		validateAnswer(t, httptest.NewRequest(http.MethodPost, "/api/v1/credentials", nil), resp, body)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.status)
		}
		for _, h := range []string{"X-Content-Type-Options", "Content-Security-Policy", "X-Frame-Options", "Referrer-Policy"} {
			if resp.Header.Get(h) == "" {
				t.Errorf("%s: the %d lacks %s", tc.name, resp.StatusCode, h)
			}
		}
	}
	counts, err := e.st.AuditCounts(context.Background(), time.Now().Add(-time.Hour))
	got := map[int]int64{}
	for _, c := range counts {
		got[c.Status] += c.Count
	}
	if err != nil || got[413] != 1 || got[431] != 1 {
		t.Errorf("counts after a 413 and a 431: %+v, %v", counts, err)
	}
}
