package store

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestReserveSignInCountsWithinTheWindowAllOrNone(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		const window = 15 * time.Minute
		account := SignInLimit{Subject: "account:ops", Max: 3, Window: window}
		address := SignInLimit{Subject: "address:192.0.2.1", Max: 4, Window: window}
		for i := range 3 {
			if err := s.ReserveSignIn(ctx, t0.Add(time.Duration(i)*time.Minute), account, address); err != nil {
				t.Fatalf("attempt %d: %v", i+1, err)
			}
		}
		err := s.ReserveSignIn(ctx, t0.Add(5*time.Minute), account, address)
		th, ok := IsThrottled(err)
		if !ok || th.Subject != "account:ops" || th.RetryAfter != 10*time.Minute {
			t.Fatalf("fourth attempt: %v, want account:ops throttled for 10m", err)
		}
		// The refused attempt counted nothing: the address still has one.
		other := SignInLimit{Subject: "account:dev", Max: 3, Window: window}
		if err := s.ReserveSignIn(ctx, t0.Add(5*time.Minute), other, address); err != nil {
			t.Fatalf("the address's fourth attempt: %v", err)
		}
		if _, ok := IsThrottled(s.ReserveSignIn(ctx, t0.Add(6*time.Minute), other, address)); !ok {
			t.Error("the address's fifth attempt was let through")
		}
		// A new window starts once the last has closed.
		if err := s.ReserveSignIn(ctx, t0.Add(window), account); err != nil {
			t.Errorf("after the window: %v", err)
		}
		if n, err := s.ForgetSignIns(ctx, "account:ops", "account:nobody"); err != nil || n != 1 {
			t.Errorf("ForgetSignIns = %d, %v; want 1", n, err)
		}
		for range 3 {
			if err := s.ReserveSignIn(ctx, t0.Add(window), account); err != nil {
				t.Errorf("after forgetting: %v", err)
			}
		}
	})
}

func TestReserveSignInPacesOnlySubjectsThatHaveTried(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		account := SignInLimit{Subject: "account:admin", Window: time.Hour}
		from := func(addr string) []SignInLimit {
			return []SignInLimit{account, {Subject: "address:" + addr + "/account:admin", Window: time.Hour,
				Pace: &Pace{Of: account.Subject, After: 2, Delay: func(over int) time.Duration { return time.Duration(over) * 10 * time.Second }}}}
		}
		for i, addr := range []string{"192.0.2.1", "192.0.2.2"} {
			if err := s.ReserveSignIn(ctx, t0, from(addr)...); err != nil {
				t.Fatalf("free attempt %d: %v", i+1, err)
			}
		}
		// The account has had its 2: an address that tried waits 10 s
		// after its own last attempt ...
		if th, ok := IsThrottled(s.ReserveSignIn(ctx, t0.Add(5*time.Second), from("192.0.2.1")...)); !ok || th.RetryAfter != 5*time.Second {
			t.Fatalf("192.0.2.1 again 5 s later: %v, want a 5 s wait", th)
		}
		// ... an address that never tried does not, and its attempt makes
		// the account 2 past its 2: 20 s.
		if err := s.ReserveSignIn(ctx, t0.Add(5*time.Second), from("198.51.100.1")...); err != nil {
			t.Fatalf("a new address: %v", err)
		}
		if _, ok := IsThrottled(s.ReserveSignIn(ctx, t0.Add(19*time.Second), from("192.0.2.1")...)); !ok {
			t.Fatal("192.0.2.1 19 s after its last was let through, want a 20 s spacing")
		}
		if err := s.ReserveSignIn(ctx, t0.Add(20*time.Second), from("192.0.2.1")...); err != nil {
			t.Fatalf("192.0.2.1 20 s after its last: %v", err)
		}
		// The account is 3 past its 2 now: 30 s after 192.0.2.2's last.
		if th, ok := IsThrottled(s.ReserveSignIn(ctx, t0.Add(25*time.Second), from("192.0.2.2")...)); !ok || th.RetryAfter != 5*time.Second {
			t.Fatalf("192.0.2.2 25 s after its last: %v, want 5 s more (30 s spacing)", th)
		}
		if err := s.ReserveSignIn(ctx, t0.Add(30*time.Second), from("192.0.2.2")...); err != nil {
			t.Fatalf("192.0.2.2 30 s after its last: %v", err)
		}
	})
}

func TestRefusedAttemptsCountAgainstChargedLimitsOnly(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		const window = 15 * time.Minute
		pair := SignInLimit{Subject: "address:192.0.2.1/account:ops", Max: 2, Window: window, Charged: true}
		address := SignInLimit{Subject: "address:192.0.2.1", Max: 10, Window: time.Hour, Charged: true}
		account := SignInLimit{Subject: "account:ops", Window: time.Hour}
		for range 2 {
			if err := s.ReserveSignIn(ctx, t0, pair, address, account); err != nil {
				t.Fatal(err)
			}
		}
		// Refused 10 minutes on: the window starts again from the refusal,
		// and Retry-After says so.
		th, ok := IsThrottled(s.ReserveSignIn(ctx, t0.Add(10*time.Minute), pair, address, account))
		if !ok || th.Subject != pair.Subject || th.RetryAfter != window {
			t.Fatalf("third attempt: %v, want %s refused for the whole window", th, pair.Subject)
		}
		if _, ok := IsThrottled(s.ReserveSignIn(ctx, t0.Add(window), pair, address, account)); !ok {
			t.Error("the first window's end let through a client that kept trying")
		}
		if err := s.ReserveSignIn(ctx, t0.Add(2*window), pair, address, account); err != nil {
			t.Errorf("a whole window after the last refusal: %v", err)
		}
		// The two refusals counted on the address (2 + 2 + 1 = 5 of 10)
		// but not on the account (2 + 1).
		for subject, want := range map[string]int{address.Subject: 5, account.Subject: 3} {
			c := &signInCounter{Subject: subject}
			if err := s.db.NewSelect().Model(c).WherePK().Scan(ctx); err != nil || c.Failures != want {
				t.Errorf("%s counts %d (%v), want %d", subject, c.Failures, err, want)
			}
		}
	})
}

func TestParallelReservationsNeverExceedTheLimit(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		limits := []SignInLimit{{Subject: "account:ops", Max: 5, Window: time.Hour},
			{Subject: "address:192.0.2.1", Max: 20, Window: time.Hour}}
		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			passed int
		)
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.ReserveSignIn(ctx, t0, limits...)
				if _, ok := IsThrottled(err); err != nil && !ok {
					t.Error(err)
				}
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					passed++
				}
			}()
		}
		wg.Wait()
		if passed != 5 {
			t.Errorf("50 parallel reservations: %d passed, want exactly 5", passed)
		}
		if err := s.ReturnSignIn(ctx, "address:192.0.2.1"); err != nil {
			t.Fatal(err)
		}
		if n, err := s.ForgetSignInsMatching(ctx, "account:", "ops"); err != nil || n != 1 {
			t.Errorf("ForgetSignInsMatching = %d, %v", n, err)
		}
		// The address had 5 of 20, one returned: 16 more pass.
		for i := range 17 {
			err := s.ReserveSignIn(ctx, t0, SignInLimit{Subject: "address:192.0.2.1", Max: 20, Window: time.Hour})
			if (i < 16) != (err == nil) {
				t.Fatalf("address attempt %d after the burst: %v", i+1, err)
			}
		}
	})
}

// A successful sign-in forgets its counts while other attempts reserve on
// the same subjects: no reservation may fail for a row deleted between
// its insert and its read (PostgreSQL answered "no rows" as an error, a
// 500 to the sign-in).
func TestReservationsRaceForgetWithoutError(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		limit := SignInLimit{Subject: "account:ops", Max: 1000, Window: time.Hour}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.ForgetSignIns(ctx, limit.Subject); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		var failed sync.Map
		var reservers sync.WaitGroup
		for i := range 8 {
			reservers.Add(1)
			go func() {
				defer reservers.Done()
				for range 50 {
					if err := s.ReserveSignIn(ctx, t0, limit); err != nil {
						failed.Store(i, err)
						return
					}
				}
			}()
		}
		reservers.Wait()
		close(stop)
		wg.Wait()
		failed.Range(func(_, err any) bool {
			t.Errorf("a reservation racing a forget: %v", err)
			return true
		})
	})
}
