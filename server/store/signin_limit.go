package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// signInCounter is a row of the sign_in_failures table: the sign-in
// attempts of one subject since WindowStart, the last at LastAt.
type signInCounter struct {
	bun.BaseModel `bun:"table:sign_in_failures"`

	Subject     string    `bun:"subject,pk"`
	Failures    int       `bun:"failures"`
	WindowStart time.Time `bun:"window_start"`
	LastAt      time.Time `bun:"last_at,nullzero"`
}

// SignInLimit is one budget a sign-in attempt draws on, such as an account
// or a client address.
type SignInLimit struct {
	Subject string
	// Max attempts are allowed in Window, counted from the first.
	Max    int
	Window time.Duration
	// Backoff, when set, lets attempts beyond Max through one at a time
	// instead of refusing them until the window ends: the k-th attempt
	// over Max comes no sooner than Backoff(k) after the previous one.
	Backoff func(over int) time.Duration
}

// ThrottledError is ReserveSignIn's refusal: Subject has used up its
// budget until RetryAfter has passed.
type ThrottledError struct {
	Subject    string
	RetryAfter time.Duration
}

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("too many sign-in attempts for %s; retry after %s", e.Subject, e.RetryAfter)
}

// ReserveSignIn counts one sign-in attempt at at against every limit, all
// or none, before the password is checked: of any number of parallel
// attempts, even on several server replicas, at most Max pass each limit.
// A limit used up refuses with a *ThrottledError and counts nothing. The
// rows are locked in subject order, so concurrent reservations never
// deadlock.
func (s *Store) ReserveSignIn(ctx context.Context, at time.Time, limits ...SignInLimit) error {
	at = at.UTC().Truncate(time.Microsecond)
	limits = slices.Clone(limits)
	slices.SortFunc(limits, func(a, b SignInLimit) int { return strings.Compare(a.Subject, b.Subject) })
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, l := range limits {
			if err := s.reserveOne(ctx, tx, at, l); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *Store) reserveOne(ctx context.Context, tx bun.Tx, at time.Time, l SignInLimit) error {
	// One statement makes the row or takes the one there, locked until the
	// transaction ends (an update of it), and returns it: a row read after
	// a separate insert could be gone already, deleted by a successful
	// sign-in's ForgetSignIns in between. (SQLite's transactions take the
	// write lock at BEGIN.)
	c := &signInCounter{Subject: l.Subject, WindowStart: at, LastAt: at}
	if _, err := tx.NewInsert().Model(c).On("CONFLICT (subject) DO UPDATE").Set("subject = EXCLUDED.subject").
		Returning("*").Exec(ctx); err != nil {
		return fmt.Errorf("reserve a sign-in attempt: %w", err)
	}
	if !at.Before(c.WindowStart.Add(l.Window)) {
		c.Failures, c.WindowStart = 0, at
	}
	if c.Failures >= l.Max {
		if wait := retryAfter(c, at, l); wait > 0 {
			return &ThrottledError{Subject: l.Subject, RetryAfter: wait}
		}
	}
	c.Failures++
	c.LastAt = at
	if _, err := tx.NewUpdate().Model(c).Column("failures", "window_start", "last_at").WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("reserve a sign-in attempt: %w", err)
	}
	return nil
}

// retryAfter is how long a subject at its limit must wait: until its
// window ends, or with a Backoff until the next spaced attempt.
func retryAfter(c *signInCounter, at time.Time, l SignInLimit) time.Duration {
	end := c.WindowStart.Add(l.Window).Sub(at)
	if l.Backoff == nil {
		return end
	}
	return min(c.LastAt.Add(l.Backoff(c.Failures-l.Max+1)).Sub(at), end)
}

// ForgetSignIns drops the counts of subjects, after a successful sign-in
// or when an administrator unlocks them. It reports how many subjects had
// a count.
func (s *Store) ForgetSignIns(ctx context.Context, subjects ...string) (int, error) {
	if len(subjects) == 0 {
		return 0, nil
	}
	res, err := s.db.NewDelete().Model((*signInCounter)(nil)).Where("subject IN (?)", bun.List(subjects)).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("clear sign-in attempts: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// ForgetSignInsMatching drops the counts of every subject that starts with
// prefix and ends with suffix, e.g. an account's count from every address.
func (s *Store) ForgetSignInsMatching(ctx context.Context, prefix, suffix string) (int, error) {
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	res, err := s.db.NewDelete().Model((*signInCounter)(nil)).
		Where(`subject LIKE ? ESCAPE '\'`, esc.Replace(prefix)+"%"+esc.Replace(suffix)).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("clear sign-in attempts: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// ReturnSignIn gives one reserved attempt back to subject, so a successful
// sign-in does not count against a budget shared with others.
func (s *Store) ReturnSignIn(ctx context.Context, subject string) error {
	_, err := s.db.NewUpdate().Model((*signInCounter)(nil)).Set("failures = failures - 1").
		Where("subject = ? AND failures > 0", subject).Exec(ctx)
	if err != nil {
		return fmt.Errorf("return a sign-in attempt: %w", err)
	}
	return nil
}

// IsThrottled reports whether err is ReserveSignIn's refusal, and which.
func IsThrottled(err error) (*ThrottledError, bool) {
	var t *ThrottledError
	ok := errors.As(err, &t)
	return t, ok
}
