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
		// The owner, elsewhere, has never failed on the account: the
		// account's spacing does not hold them back.
		if code, _, _ := e.signIn("admin", "correct-horse-battery", "X-Forwarded-For", owner); code != http.StatusCreated {
			t.Errorf("right password from elsewhere at once: %d, want 201", code)
		}
		// The guesser's refusals counted: a window after its first guesses
		// it is still refused, since it kept trying.
		e.advance(14 * time.Minute)
		e.signIn("admin", "wrong-password-here", "X-Forwarded-For", guesser)
		e.advance(2 * time.Minute)
		if code, _, _ := e.signIn("admin", "correct-horse-battery", "X-Forwarded-For", guesser); code != http.StatusTooManyRequests {
			t.Errorf("the guesser's address 16 minutes on, having kept trying: %d, want still 429", code)
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

func TestSpacingHoldsBackOnlyAddressesThatFailedOnTheAccount(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{})
	e.user("admin", PlatformAdmin)
	x := func(i int) string { return fmt.Sprintf("203.0.113.%d", i) }
	step := func(what string, addr string, want int) {
		t.Helper()
		if code, _, _ := e.signIn("admin", "wrong-password-here", "X-Forwarded-For", addr); code != want {
			t.Fatalf("%s: %d, want %d", what, code, want)
		}
	}
	for i := range 5 { // the account's 5 free failures
		step("a first guess", x(i), http.StatusUnauthorized)
	}
	// Past them, an address that failed waits after its own last attempt:
	// 1 s, 2 s, 4 s, ... as the account's failures grow.
	e.advance(time.Second)
	step("x0 1 s after its last (1 s spacing)", x(0), http.StatusUnauthorized)
	step("x1 1 s after its last (2 s spacing)", x(1), http.StatusTooManyRequests)
	// The refusal counted: x1's 2 s start again from it, and again from
	// each refusal after it.
	e.advance(time.Second)
	step("x1 2 s after its first guess, 1 s after its refusal", x(1), http.StatusTooManyRequests)
	e.advance(2 * time.Second)
	step("x1 2 s after its last refusal", x(1), http.StatusUnauthorized)
	// An address new to the account is checked at once, however many
	// failures the account has had.
	step("a new address", "198.51.100.7", http.StatusUnauthorized)
	// 8 failures, 4 past the free ones: 8 s after x2's last (4 s ago).
	step("x2 4 s after its last (8 s spacing)", x(2), http.StatusTooManyRequests)
	e.advance(8 * time.Second)
	step("x2 8 s after its refusal", x(2), http.StatusUnauthorized)
	if n, err := UnlockAccount(context.Background(), e.st, "admin"); err != nil || n < 1 {
		t.Fatalf("UnlockAccount = %d, %v", n, err)
	}
	if code, _, _ := e.signIn("admin", "correct-horse-battery", "X-Forwarded-For", x(1)); code != http.StatusCreated {
		t.Errorf("after unlocking the account, from x1: %d, want 201", code)
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
	app.Get("/", func(c *fiber.Ctx) error { return c.SendString(s.clientAddr(c).String()) })
	for _, tc := range []struct{ xff, want string }{
		{"", "0.0.0.0"},
		{"198.51.100.1", "198.51.100.1"},
		{"6.6.6.6, 198.51.100.1", "198.51.100.1"},
		{"6.6.6.6, 198.51.100.1, 10.1.2.3", "198.51.100.1"},
		{"::ffff:198.51.100.2", "198.51.100.2"},
		{"not-an-ip, 10.1.2.3", "10.1.2.3"},
		// Some proxies append the client's port (issue 42, M2).
		{"198.51.100.3:4711", "198.51.100.3"},
		{"6.6.6.6, [2001:db8::7]:4711, 10.1.2.3:80", "2001:db8::7"},
		{"[::ffff:198.51.100.4]:443", "198.51.100.4"},
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
