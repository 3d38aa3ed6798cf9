package api

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// Sign-in throttling: every attempt to sign in with a password is reserved
// in the database before the password is compared, so parallel guesses,
// even spread over server replicas, cannot pass a count read before any
// of them is written. An attempt draws on three budgets:
//
//   - the account from this address (PerAccount a window): a guesser locks
//     out its own address, not the account's owner elsewhere;
//   - the address (PerAddress a window, whatever the account);
//   - the account from anywhere: PerAccount attempts, then the next ones
//     spaced by a delay that doubles up to maxAccountDelay, so guesses from
//     many addresses slow down without ever locking the account.

// maxAccountDelay caps the spacing of attempts on a busy account, so its
// owner waits at most this long.
const maxAccountDelay = time.Minute

// Subjects of the sign-in counters, which `kubeopera users unlock` names.
func accountSubject(username string) string { return "account:" + username }
func addressSubject(addr string) string     { return "address:" + addr }
func accountFromAddressSubject(username, addr string) string {
	return addressSubject(addr) + "/" + accountSubject(username)
}

// UnlockAccount clears the sign-in counts of username from every address.
func UnlockAccount(ctx context.Context, st *store.Store, username string) (int, error) {
	n, err := st.ForgetSignIns(ctx, accountSubject(username))
	if err != nil {
		return n, err
	}
	m, err := st.ForgetSignInsMatching(ctx, addressSubject(""), "/"+accountSubject(username))
	return n + m, err
}

// UnlockAddress clears the sign-in counts of a client address, for every
// account; addr must be an IP address.
func UnlockAddress(ctx context.Context, st *store.Store, addr string) (int, error) {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return 0, fmt.Errorf("address %q is not an IP address: %w", addr, err)
	}
	n, err := st.ForgetSignIns(ctx, addressSubject(ip.Unmap().String()))
	if err != nil {
		return n, err
	}
	m, err := st.ForgetSignInsMatching(ctx, addressSubject(ip.Unmap().String())+"/", "")
	return n + m, err
}

// reserveSignIn counts one attempt to sign in as username from the
// request's client address, or answers 429 with Retry-After once a budget
// is used up. Every route that compares a password calls it first, and
// signedIn once the password was right.
func (s *server) reserveSignIn(c *fiber.Ctx, username string) error {
	o, addr := s.sessions, s.clientAddr(c)
	backoff := func(over int) time.Duration { return min(time.Second<<min(over-1, 16), maxAccountDelay) }
	err := s.store.ReserveSignIn(c.UserContext(), o.now(),
		store.SignInLimit{Subject: accountFromAddressSubject(username, addr), Max: o.PerAccount, Window: o.Window},
		store.SignInLimit{Subject: addressSubject(addr), Max: o.PerAddress, Window: o.Window},
		store.SignInLimit{Subject: accountSubject(username), Max: o.PerAccount, Window: o.Window, Backoff: backoff})
	th, ok := store.IsThrottled(err)
	if !ok {
		return err
	}
	c.Set(fiber.HeaderRetryAfter, fmt.Sprint(int(th.RetryAfter.Seconds())+1))
	whose := "this account from your address"
	switch th.Subject {
	case addressSubject(addr):
		whose = "your address"
	case accountSubject(username):
		whose = "this account"
	}
	return problem(http.StatusTooManyRequests, "too many sign-in attempts for %s; try again in %s", whose,
		th.RetryAfter.Round(time.Second).String())
}

// signedIn forgets the account's counts after the right password, and
// gives the address back the attempt it used.
func (s *server) signedIn(c *fiber.Ctx, username string) error {
	addr := s.clientAddr(c)
	if _, err := s.store.ForgetSignIns(c.UserContext(), accountSubject(username), accountFromAddressSubject(username, addr)); err != nil {
		return err
	}
	return s.store.ReturnSignIn(c.UserContext(), addressSubject(addr))
}

// clientAddr is the address of the client: the connection's, or when the
// connection comes from a trusted proxy, the last address in
// X-Forwarded-For that is not itself a trusted proxy (what a proxy
// appends; anything before it the client may have made up).
func (s *server) clientAddr(c *fiber.Ctx) string {
	peer, ok := netip.AddrFromSlice(c.Context().RemoteIP())
	peer = peer.Unmap()
	if !ok || !s.trusted(peer) {
		return peer.String()
	}
	var hops []string
	for _, h := range c.Request().Header.PeekAll(fiber.HeaderXForwardedFor) {
		hops = append(hops, strings.Split(string(h), ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a malformed hop: stop at the last one a proxy vouched for
		}
		if peer = a.Unmap(); !s.trusted(peer) {
			return peer.String()
		}
	}
	return peer.String()
}

func (s *server) trusted(a netip.Addr) bool {
	for _, p := range s.trustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
