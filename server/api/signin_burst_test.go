package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// burst sends n sign-ins at once, the i-th with password(i) from the
// address addr(i) (through the trusted proxy's X-Forwarded-For), and
// returns each status.
func (e *sessionEnv) burst(n int, user string, password func(int) string, addr func(int) string) []int {
	codes := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			codes[i], _, _ = e.signIn(user, password(i), "X-Forwarded-For", addr(i))
		}()
	}
	close(start)
	wg.Wait()
	return codes
}

func tally(codes []int) map[int]int {
	m := map[int]int{}
	for _, c := range codes {
		m[c]++
	}
	return m
}

// eachSessionStore runs fn against a session API on SQLite and PostgreSQL.
func eachSessionStore(t *testing.T, o SessionOptions, fn func(t *testing.T, e *sessionEnv)) {
	for _, db := range []struct {
		name     string
		postgres bool
	}{{store.DialectSQLite, false}, {store.DialectPostgres, true}} {
		t.Run(db.name, func(t *testing.T) { fn(t, newSessionEnvOn(t, o, db.postgres)) })
	}
}

func TestParallelWrongPasswordsForOneAccountStopAtTheLimit(t *testing.T) {
	eachSessionStore(t, SessionOptions{}, func(t *testing.T, e *sessionEnv) {
		e.user("target", Viewer)
		got := tally(e.burst(40, "target", func(int) string { return "wrong-password-here" },
			func(int) string { return "203.0.113.7" }))
		t.Logf("40 parallel wrong passwords: %v", got)
		if got[401] > 5 || got[401]+got[429] != 40 {
			t.Errorf("40 parallel wrong passwords: %v; want at most 5 × 401, the rest 429", got)
		}
	})
}

func TestRightPasswordAmongParallelWrongOnesFailsOnceTheLimitIsReached(t *testing.T) {
	wrongBut := func(right int) func(int) string {
		return func(i int) string {
			if i == right {
				return "correct-horse-battery"
			}
			return "wrong-password-here"
		}
	}
	from := func(int) string { return "203.0.113.7" }
	eachSessionStore(t, SessionOptions{}, func(t *testing.T, e *sessionEnv) {
		e.user("target", Viewer)
		// Mixed: a right password let through within the budget resets the
		// account's count (the owner is back), so the guesses reserved
		// after it draw on a fresh budget; never more than one budget
		// before it and one after.
		got := tally(e.burst(40, "target", wrongBut(20), from))
		t.Logf("39 wrong and the right password in parallel: %v", got)
		if checked := got[401] + got[201]; checked > 5*(1+got[201]) || checked+got[429] != 40 {
			t.Errorf("39 wrong + 1 right in parallel: %v; want at most 5 checked per budget, the rest 429", got)
		}
		// Once the budget is used up, the right password among parallel
		// guesses is refused like them: the limit is taken before the
		// password is compared.
		e.burst(40, "target", func(int) string { return "wrong-password-here" }, from)
		got = tally(e.burst(20, "target", wrongBut(10), from))
		t.Logf("after the limit, 19 wrong and the right password in parallel: %v", got)
		if got[429] != 20 {
			t.Errorf("after the limit, 19 wrong + 1 right in parallel: %v; want all 20 refused with 429", got)
		}
	})
}

func TestParallelWrongPasswordsFromOneAddressStopAtItsLimit(t *testing.T) {
	eachSessionStore(t, SessionOptions{}, func(t *testing.T, e *sessionEnv) {
		// Each guess names another account, so only the address's limit
		// (20) can stop them.
		codes := make([]int, 60)
		var wg sync.WaitGroup
		for i := range codes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i], _, _ = e.signIn(fmt.Sprintf("user-%02d", i), "wrong-password-here", "X-Forwarded-For", "203.0.113.9")
			}()
		}
		wg.Wait()
		got := tally(codes)
		t.Logf("60 parallel wrong sign-ins from one address: %v", got)
		if got[401] > 20 || got[401]+got[429] != 60 {
			t.Errorf("60 parallel wrong sign-ins from one address: %v; want at most 20 × 401, the rest 429", got)
		}
		if code, _, _ := e.signIn("user-00", "wrong-password-here", "X-Forwarded-For", "198.51.100.1"); code != http.StatusUnauthorized {
			t.Errorf("another address afterwards: %d, want 401", code)
		}
	})
}

func TestGuessesLockTheGuessersAddressNotTheAccount(t *testing.T) {
	eachSessionStore(t, SessionOptions{}, func(t *testing.T, e *sessionEnv) {
		e.user("admin", PlatformAdmin)
		const guesser, owner = "203.0.113.7", "198.51.100.20"
		e.burst(40, "admin", func(int) string { return "wrong-password-here" }, func(int) string { return guesser })
		if code, _, _ := e.signIn("admin", "correct-horse-battery", "X-Forwarded-For", guesser); code != http.StatusTooManyRequests {
			t.Errorf("right password from the guesser's address: %d, want 429", code)
		}
		// The owner, elsewhere, waits a second (the account's attempts are
		// spaced once past its free ones), not the window's 15 minutes.
		if code, _, _ := e.signIn("admin", "correct-horse-battery", "X-Forwarded-For", owner); code != http.StatusTooManyRequests {
			t.Errorf("right password from elsewhere at once: %d, want 429 (spaced)", code)
		}
		e.advance(time.Second)
		if code, _, _ := e.signIn("admin", "correct-horse-battery", "X-Forwarded-For", owner); code != http.StatusCreated {
			t.Errorf("right password from elsewhere a second later: %d, want 201", code)
		}
		if code, _, _ := e.signIn("admin", "correct-horse-battery", "X-Forwarded-For", guesser); code != http.StatusTooManyRequests {
			t.Errorf("the guesser's address after the owner signed in: %d, want still 429", code)
		}
		// An administrator unlocks the address.
		if n, err := UnlockAddress(context.Background(), e.st, guesser); err != nil || n == 0 {
			t.Fatalf("UnlockAddress = %d, %v", n, err)
		}
		if code, _, _ := e.signIn("admin", "correct-horse-battery", "X-Forwarded-For", guesser); code != http.StatusCreated {
			t.Errorf("after unlocking the address: %d, want 201", code)
		}
	})
}

func TestSpacingGrowsWithEachGuessFromManyAddresses(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{PerAccount: 2})
	e.user("admin", PlatformAdmin)
	guess := func(i int) int {
		code, _, _ := e.signIn("admin", "wrong-password-here", "X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i))
		return code
	}
	for i := range 2 {
		if code := guess(i); code != http.StatusUnauthorized {
			t.Fatalf("free guess %d: %d", i+1, code)
		}
	}
	for i, wait := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
		e.advance(wait - time.Millisecond)
		if code := guess(10 + i); code != http.StatusTooManyRequests {
			t.Fatalf("guess %d just before its %s: %d, want 429", i+3, wait, code)
		}
		e.advance(time.Millisecond)
		if code := guess(20 + i); code != http.StatusUnauthorized {
			t.Fatalf("guess %d after %s: %d, want 401", i+3, wait, code)
		}
	}
	if n, err := UnlockAccount(context.Background(), e.st, "admin"); err != nil || n < 1 {
		t.Fatalf("UnlockAccount = %d, %v", n, err)
	}
	if code, _, _ := e.signIn("admin", "correct-horse-battery", "X-Forwarded-For", "203.0.113.200"); code != http.StatusCreated {
		t.Errorf("after unlocking the account: %d", code)
	}
}

func TestForwardedHeadersCountOnlyFromTrustedProxies(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{PerAddress: 2})
	// No trusted proxy: X-Forwarded-For and -Proto are the client's words.
	e.app = New(Deps{Store: e.st, Keyring: e.keys, Providers: sharedHost(t), Sessions: SessionOptions{PerAddress: 2}, Logger: discardLogger()})
	e.user("ops", Viewer)
	for i := range 2 {
		e.signIn(fmt.Sprintf("nobody-%d", i), "wrong-password-here", "X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i))
	}
	if code, _, _ := e.signIn("ops", "correct-horse-battery", "X-Forwarded-For", "198.51.100.99"); code != http.StatusTooManyRequests {
		t.Errorf("a made-up X-Forwarded-For escaped the address limit: %d, want 429", code)
	}
	if _, err := UnlockAddress(context.Background(), e.st, "0.0.0.0"); err != nil {
		t.Fatal(err)
	}
	if _, cookie, _ := e.signIn("ops", "correct-horse-battery", "X-Forwarded-Proto", "https"); cookie == nil || cookie.Secure {
		t.Errorf("X-Forwarded-Proto from an untrusted client made the cookie %+v; want it not Secure", cookie)
	}
}

func TestClientAddressIsTheLastHopNotATrustedProxy(t *testing.T) {
	s := &server{trustedProxies: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/32"), netip.MustParsePrefix("10.0.0.0/8")}}
	app := fiber.New()
	app.Get("/", func(c *fiber.Ctx) error { return c.SendString(s.clientAddr(c)) })
	for _, tc := range []struct{ xff, want string }{
		{"", "0.0.0.0"},
		{"198.51.100.1", "198.51.100.1"},
		{"6.6.6.6, 198.51.100.1", "198.51.100.1"},
		{"6.6.6.6, 198.51.100.1, 10.1.2.3", "198.51.100.1"},
		{"::ffff:198.51.100.2", "198.51.100.2"},
		{"not-an-ip, 10.1.2.3", "10.1.2.3"},
	} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		if tc.xff != "" {
			req.Header.Set("X-Forwarded-For", tc.xff)
		}
		resp, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		if string(b) != tc.want {
			t.Errorf("X-Forwarded-For %q: client %q, want %q", tc.xff, b, tc.want)
		}
	}
}
