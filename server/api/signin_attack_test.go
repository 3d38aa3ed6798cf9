package api

import (
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// attackPhase is how long each phase of the attack runs: a few seconds in
// `go test`, longer with KUBEOPERA_SIGNIN_ATTACK=60s.
func attackPhase(t *testing.T) time.Duration {
	v := os.Getenv("KUBEOPERA_SIGNIN_ATTACK")
	if v == "" {
		return 6 * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("KUBEOPERA_SIGNIN_ATTACK=%q: want a duration such as 60s", v)
	}
	return d
}

// try sends one sign-in (POST path with username and password) and
// returns its status, or 0 when the request itself failed.
func (e *sessionEnv) try(path, user, password string, header ...string) (int, []byte) {
	req := httptest.NewRequest(http.MethodPost, path,
		strings.NewReader(`{"username":"`+user+`","password":"`+password+`"}`))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.app.Test(req, -1)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// attackTally counts an attacker's answers: 401s reached the password
// check, 429s were refused before it.
type attackTally struct {
	checked, refused, other atomic.Int64
	// late counts the checked guesses of the attack's second half: its
	// pace once the first guesses are spent.
	late atomic.Int64
}

// attack sends wrong passwords for user from workers goroutines as fast as
// each answer comes back, from the address addr(worker, i) names, until
// ctx ends.
func (e *sessionEnv) attack(ctx context.Context, user string, workers int, addr func(w, i int) string) *attackTally {
	var tl attackTally
	deadline, _ := ctx.Deadline()
	half := time.Now().Add(time.Until(deadline) / 2)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				switch code, _ := e.try("/api/v1/session", user, "wrong-password-here", "X-Forwarded-For", addr(w, i)); code {
				case http.StatusUnauthorized:
					tl.checked.Add(1)
					if time.Now().After(half) {
						tl.late.Add(1)
					}
				case http.StatusTooManyRequests:
					tl.refused.Add(1)
				default:
					tl.other.Add(1)
				}
			}
		}()
	}
	e.t.Cleanup(wg.Wait) // the workers end with ctx
	return &tl
}

// ownerWays are the owner's ways in during an attack: a password from an
// address of their own, and, from the attacker's address, a password sent
// with the session cookie or the login token of an earlier sign-in.
type ownerWays struct {
	home   string
	cookie *http.Cookie
	token  string
}

func (e *sessionEnv) ownerSignsIn(o ownerWays, attackerAddr string) map[string]int {
	got := map[string]int{}
	got["own address"], _ = e.try("/api/v1/session", "admin", "correct-horse-battery", "X-Forwarded-For", o.home)
	got["attacker's address, earlier session"], _ = e.try("/api/v1/session", "admin", "correct-horse-battery",
		"X-Forwarded-For", attackerAddr, "Cookie", sessionCookie+"="+o.cookie.Value)
	got["attacker's address, earlier login token"], _ = e.try("/api/v1/session/tokens", "admin", "correct-horse-battery",
		"X-Forwarded-For", attackerAddr, "Authorization", "Bearer "+o.token)
	return got
}

// The attack of issue 42 (H1): wrong passwords as fast as the server
// answers, first from three addresses, then from addresses rotating
// through one IPv6 /64 (X-Forwarded-For behind the trusted proxy; every
// request stays in the process), while the owner signs in every second
// from an address of their own and, with an earlier session or login
// token, from the attacker's own address.
func TestOwnerSignsInEveryTimeWhileAnAttackerGuessesAsFastAsItCan(t *testing.T) {
	phase := attackPhase(t)
	eachSessionStore(t, SessionOptions{Now: time.Now}, func(t *testing.T, e *sessionEnv) {
		e.user("admin", PlatformAdmin)
		o := ownerWays{home: "198.51.100.20"}
		code := 0
		code, o.cookie, _ = e.signIn("admin", "correct-horse-battery", "X-Forwarded-For", o.home)
		code2, body := e.try("/api/v1/session/tokens", "admin", "correct-horse-battery", "X-Forwarded-For", o.home)
		var issued issuedToken
		if code != http.StatusCreated || code2 != http.StatusCreated || json.Unmarshal(body, &issued) != nil {
			t.Fatalf("the owner's earlier sign-ins: %d, %d %s", code, code2, body)
		}
		o.token = issued.Token
		three := []string{"203.0.113.7", "203.0.113.8", "203.0.113.9"}
		rotating := netip.MustParsePrefix("2001:db8:bad:1::/64")
		for _, p := range []struct {
			name    string
			clients int
			addr    func(w, i int) string
		}{
			{"3 addresses", 3, func(w, _ int) string { return three[w%3] }},
			{"an IPv6 /64, a new address each guess", 1, func(int, int) string { return randomIn(rotating) }},
		} {
			t.Run(p.name, func(t *testing.T) {
				tl := e.underAttack(t, phase, o, p.addr)
				// A client that keeps guessing pays with its refusals:
				// the account's 5 free checks, then one more for each
				// client new to the account at most; the /64 is one client.
				if n, most := tl.checked.Load(), int64(5+p.clients); n > most {
					t.Errorf("%d guesses reached the password check, want at most %d", n, most)
				}
			})
		}
	})
}

// underAttack runs one phase of the attack for d, checks that every
// sign-in of the owner got in, and returns the attacker's tally.
func (e *sessionEnv) underAttack(t *testing.T, d time.Duration, o ownerWays, addr func(w, i int) string) *attackTally {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	tl := e.attack(ctx, "admin", 6, addr)
	owner := map[string]map[int]int{}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
		case <-tick.C:
			for way, code := range e.ownerSignsIn(o, addr(0, i)) {
				if owner[way] == nil {
					owner[way] = map[int]int{}
				}
				owner[way][code]++
			}
			continue
		}
		break
	}
	elapsed := time.Since(start)
	perHour := func(n int64, in time.Duration) float64 { return float64(n) * float64(time.Hour) / float64(in) }
	checked, late := tl.checked.Load(), tl.late.Load()
	t.Logf("attacker in %s: %d guesses reached the password check (%.0f an hour at this pace; %d in the second half, %.0f an hour), %d refused (429), %d other",
		elapsed.Round(time.Millisecond), checked, perHour(checked, elapsed), late, perHour(late, elapsed/2), tl.refused.Load(), tl.other.Load())
	for way, codes := range owner {
		t.Logf("owner, %s: %v", way, codes)
		if len(codes) != 1 || codes[http.StatusCreated] == 0 {
			t.Errorf("owner, %s: %v; want every sign-in 201", way, codes)
		}
	}
	if len(owner) != 3 {
		t.Errorf("the owner signed in %d ways, want 3: the phase ended before the first second", len(owner))
	}
	if n := tl.other.Load(); n != 0 {
		t.Errorf("%d attacker requests answered neither 401 nor 429", n)
	}
	return tl
}

// randomIn is a random address in p.
func randomIn(p netip.Prefix) string {
	b := p.Addr().As16()
	for i := p.Bits() / 8; i < 16; i++ {
		b[i] = byte(rand.N(256))
	}
	return netip.AddrFrom16(b).String()
}
