package api

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// Sign-in throttling: every attempt to sign in with a password is reserved
// in the database before the password is compared, so parallel guesses,
// even spread over server replicas, cannot pass a count read before any
// of them is written. The limits are built so that a guesser locks out
// itself, never the account's owner:
//
//   - the account from this client (PerAccount a window), where a client
//     is an IPv4 address or an IPv6 /64 (addressBucket);
//   - the client, whatever the account (PerAddress a window);
//   - the account from anywhere: once it has had PerAccount attempts, a
//     client that has already tried this account waits a delay after its
//     own last attempt, doubling up to maxAccountDelay. A client that has
//     not tried it (the owner at home) is never held back by it.
//
// A refused attempt counts against the client's own two limits and starts
// their window again, so a guesser that keeps trying stays refused instead
// of taking each slot the moment it opens. A request that carries the
// session cookie or login token of an earlier sign-in of the account (a
// known device, knownDevice) draws on its own budget only, so the owner
// gets in from behind the guesser's address too.

// maxAccountDelay caps the spacing of attempts on a busy account, so its
// owner, after a wrong password of their own, waits at most this long.
const maxAccountDelay = time.Minute

func accountDelay(over int) time.Duration {
	return min(time.Second<<min(over-1, 16), maxAccountDelay)
}

// Subjects of the sign-in counters, which `kubeopera users unlock` names.
func accountSubject(username string) string { return "account:" + username }
func addressSubject(bucket string) string   { return "address:" + bucket }
func accountFromAddressSubject(username, bucket string) string {
	return addressSubject(bucket) + "/" + accountSubject(username)
}
func deviceSubject(device, username string) string {
	return devicePrefix + device + "/" + accountSubject(username)
}

const devicePrefix = "device:"

// UnlockAccount clears the sign-in counts of username from every address
// and device.
func UnlockAccount(ctx context.Context, st *store.Store, username string) (int, error) {
	n, err := st.ForgetSignIns(ctx, accountSubject(username))
	if err != nil {
		return n, err
	}
	for _, prefix := range []string{addressSubject(""), devicePrefix} {
		m, err := st.ForgetSignInsMatching(ctx, prefix, "/"+accountSubject(username))
		if n += m; err != nil {
			return n, err
		}
	}
	return n, nil
}

// UnlockAddress clears the sign-in counts of a client address, for every
// account; addr must be an IP address, and an IPv6 address clears its /64.
func UnlockAddress(ctx context.Context, st *store.Store, addr string) (int, error) {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return 0, fmt.Errorf("address %q is not an IP address: %w", addr, err)
	}
	bucket := addressBucket(ip)
	n, err := st.ForgetSignIns(ctx, addressSubject(bucket))
	if err != nil {
		return n, err
	}
	m, err := st.ForgetSignInsMatching(ctx, addressSubject(bucket)+"/", "")
	return n + m, err
}

// signInAttempt is a reserved attempt: whom it signs in, and the budgets it
// drew on.
type signInAttempt struct {
	username string
	bucket   string // the client's address bucket; empty for a known device
	device   string // the known device's credential hash
}

// limits are the budgets of the attempt (see the top of this file).
func (a signInAttempt) limits(o SessionOptions) []store.SignInLimit {
	if a.device != "" {
		return []store.SignInLimit{{Subject: deviceSubject(a.device, a.username), Max: o.PerAccount, Window: o.Window, Charged: true}}
	}
	return []store.SignInLimit{
		{Subject: accountFromAddressSubject(a.username, a.bucket), Max: o.PerAccount, Window: o.Window, Charged: true,
			Pace: &store.Pace{Of: accountSubject(a.username), After: o.PerAccount, Delay: accountDelay}},
		{Subject: addressSubject(a.bucket), Max: o.PerAddress, Window: o.Window, Charged: true},
		{Subject: accountSubject(a.username), Window: o.Window},
	}
}

// reserveSignIn counts one attempt to sign in as username from the
// request's client, or answers 429 with Retry-After once a budget is used
// up. Every route that compares a password calls it first, and signedIn
// once the password was right.
func (s *server) reserveSignIn(c *fiber.Ctx, username string) (signInAttempt, error) {
	a := signInAttempt{username: username}
	device, err := s.knownDevice(c, username)
	if err != nil {
		return a, err
	}
	if a.device = device; device == "" {
		a.bucket = addressBucket(s.clientAddr(c))
	}
	err = s.store.ReserveSignIn(c.UserContext(), s.sessions.now(), a.limits(s.sessions)...)
	th, ok := store.IsThrottled(err)
	if !ok {
		return a, err
	}
	c.Set(fiber.HeaderRetryAfter, fmt.Sprint(int(th.RetryAfter.Seconds())+1))
	whose := "this account from your address"
	switch th.Subject {
	case addressSubject(a.bucket):
		whose = "your address"
	case deviceSubject(a.device, username):
		whose = "this account from this device"
	}
	return a, problem(http.StatusTooManyRequests, "too many sign-in attempts for %s; try again in %s", whose,
		th.RetryAfter.Round(time.Second).String())
}

// signedIn forgets the counts of the account from this client or device
// after the right password, and gives the address and the account back
// the attempt it used. The account's count of other clients' failures
// stays: the owner signing in does not make a guesser's attempts free.
func (s *server) signedIn(c *fiber.Ctx, a signInAttempt) error {
	ctx := c.UserContext()
	if a.device != "" {
		_, err := s.store.ForgetSignIns(ctx, deviceSubject(a.device, a.username))
		return err
	}
	if _, err := s.store.ForgetSignIns(ctx, accountFromAddressSubject(a.username, a.bucket)); err != nil {
		return err
	}
	if err := s.store.ReturnSignIn(ctx, addressSubject(a.bucket)); err != nil {
		return err
	}
	return s.store.ReturnSignIn(ctx, accountSubject(a.username))
}
