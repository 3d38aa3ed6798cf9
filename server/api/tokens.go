package api

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// TokenUsage collects when tokens were used and writes them in batches:
// authenticating a request costs no database write.
type TokenUsage struct {
	store *store.Store
	mu    sync.Mutex
	used  map[string]time.Time
}

// NewTokenUsage returns an empty collector writing to st.
func NewTokenUsage(st *store.Store) *TokenUsage {
	return &TokenUsage{store: st, used: map[string]time.Time{}}
}

func (u *TokenUsage) record(id string, at time.Time) {
	u.mu.Lock()
	u.used[id] = at
	u.mu.Unlock()
}

// Flush writes the uses collected so far in one transaction.
func (u *TokenUsage) Flush(ctx context.Context) error {
	u.mu.Lock()
	batch := u.used
	u.used = map[string]time.Time{}
	u.mu.Unlock()
	return u.store.TouchTokens(ctx, batch)
}

// Run flushes every interval until ctx ends, then once more.
func (u *TokenUsage) Run(ctx context.Context, interval time.Duration, onErr func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := u.Flush(ctx); err != nil {
				onErr(err)
			}
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			if err := u.Flush(fctx); err != nil {
				onErr(err)
			}
			cancel()
			return
		}
	}
}

// tokenView is a token as listed: never its hash.
type tokenView struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Role       Role       `json:"role"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty"`
	ExpiresAt  *time.Time `json:"expiresAt,omitempty"`
	RevokedAt  *time.Time `json:"revokedAt,omitempty"`
	Active     bool       `json:"active"`
}

type tokenList struct {
	Items []tokenView `json:"items"`
}

func viewToken(t store.Token) tokenView {
	return tokenView{ID: t.ID, Name: t.Name, Role: Role(t.Role), CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt,
		ExpiresAt: t.ExpiresAt, RevokedAt: t.RevokedAt, Active: t.Active(time.Now())}
}

// listTokens is GET /tokens.
func (s *server) listTokens(c *fiber.Ctx) error {
	rows, err := s.store.ListTokens(c.UserContext())
	if err != nil {
		return err
	}
	out := tokenList{Items: make([]tokenView, 0, len(rows))}
	for _, t := range rows {
		out.Items = append(out.Items, viewToken(t))
	}
	return c.JSON(out)
}

// revokeToken is DELETE /tokens/{id}: the token stops working at once.
// The path names an ID, never a name: names are labels.
func (s *server) revokeToken(c *fiber.Ctx) error {
	var t *store.Token
	err := s.changeAudited(c, http.StatusNoContent, func(ev *store.AuditEvent) (err error) {
		t, err = s.store.RevokeToken(c.UserContext(), c.Params("id"), "", ev)
		return err
	})
	if err != nil {
		return err
	}
	s.log.Info("API token revoked", "token_id", t.ID, "token_name", t.Name, "by", who(c).Name, "request_id", requestID(c))
	return c.SendStatus(http.StatusNoContent)
}
