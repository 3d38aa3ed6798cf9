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
// from a client address, or a client address for every account.
type SignInLimit struct {
	Subject string
	// Max attempts are allowed in Window, counted from the first. Zero
	// counts the attempts without ever refusing one: a count that another
	// limit's Pace reads.
	Max    int
	Window time.Duration
	// Charged makes a refused attempt count here too, and one past Max
	// start the window again: a client that keeps trying while refused
	// stays refused, so it pays for its refusals and cannot take a slot
	// the moment one opens.
	Charged bool
	// Pace, when set, spaces this subject's attempts once it has any.
	Pace *Pace
}

// Pace spaces the attempts of a subject that has attempts already: once
// the subject Of (a limit of the same reservation) has had After attempts
// in its window, an attempt here comes no sooner than Delay(over) after
// this subject's last one, over being Of's attempts beyond After (1 for
// the first). A subject with no attempts yet is never paced.
type Pace struct {
	Of    string
	After int
	Delay func(over int) time.Duration
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

// ReserveSignIn counts one sign-in attempt at at against every limit
// before the password is checked: of any number of parallel attempts, even
// on several server replicas, at most Max pass each limit. An attempt a
// limit refuses returns a *ThrottledError with the longest wait and counts
// only on the Charged limits. The rows are locked in subject order, so
// concurrent reservations never deadlock.
func (s *Store) ReserveSignIn(ctx context.Context, at time.Time, limits ...SignInLimit) error {
	at = at.UTC().Truncate(time.Microsecond)
	limits = slices.Clone(limits)
	slices.SortFunc(limits, func(a, b SignInLimit) int { return strings.Compare(a.Subject, b.Subject) })
	var refused *ThrottledError
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		refused = nil
		rows := make(map[string]*signInCounter, len(limits))
		for _, l := range limits {
			c, err := lockCounter(ctx, tx, at, l)
			if err != nil {
				return err
			}
			rows[l.Subject] = c
		}
		for _, l := range limits {
			if wait := l.wait(rows, at); wait > 0 {
				refused = &ThrottledError{Subject: l.Subject, RetryAfter: wait}
				break
			}
		}
		for _, l := range limits {
			if refused != nil && !l.Charged {
				continue
			}
			c := rows[l.Subject]
			c.Failures++
			c.LastAt = at
			if refused != nil && l.Max > 0 && c.Failures > l.Max {
				c.WindowStart = at
			}
			if _, err := tx.NewUpdate().Model(c).Column("failures", "window_start", "last_at").WherePK().Exec(ctx); err != nil {
				return fmt.Errorf("reserve a sign-in attempt: %w", err)
			}
		}
		if refused != nil {
			// The wait as the charges left it: a client that honours
			// Retry-After is not refused again for retrying too soon.
			for _, l := range limits {
				if w := l.wait(rows, at); w > refused.RetryAfter {
					refused.Subject, refused.RetryAfter = l.Subject, w
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if refused != nil {
		return refused
	}
	return nil
}

// lockCounter takes the counter row of l's subject, made if missing, locked
// until the transaction ends, with a window that ended started again.
func lockCounter(ctx context.Context, tx bun.Tx, at time.Time, l SignInLimit) (*signInCounter, error) {
	// One statement makes the row or takes the one there, locked until the
	// transaction ends (an update of it), and returns it: a row read after
	// a separate insert could be gone already, deleted by a successful
	// sign-in's ForgetSignIns in between. (SQLite's transactions take the
	// write lock at BEGIN.)
	c := &signInCounter{Subject: l.Subject, WindowStart: at, LastAt: at}
	if _, err := tx.NewInsert().Model(c).On("CONFLICT (subject) DO UPDATE").Set("subject = EXCLUDED.subject").
		Returning("*").Exec(ctx); err != nil {
		return nil, fmt.Errorf("reserve a sign-in attempt: %w", err)
	}
	if !at.Before(c.WindowStart.Add(l.Window)) {
		c.Failures, c.WindowStart = 0, at
	}
	return c, nil
}

// wait is how long l's subject must wait before its next attempt, given
// the locked rows: until its window ends once at Max, and until its pace
// allows.
func (l SignInLimit) wait(rows map[string]*signInCounter, at time.Time) time.Duration {
	c := rows[l.Subject]
	var w time.Duration
	if l.Max > 0 && c.Failures >= l.Max {
		w = c.WindowStart.Add(l.Window).Sub(at)
	}
	if p := l.Pace; p != nil && c.Failures > 0 {
		if of := rows[p.Of]; of != nil && of.Failures >= p.After {
			w = max(w, c.LastAt.Add(p.Delay(of.Failures-p.After+1)).Sub(at))
		}
	}
	return w
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
