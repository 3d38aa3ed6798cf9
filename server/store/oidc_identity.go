package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/ochestra-tech/kubeopera/server/access"
)

// OIDCIdentity links a user to the OpenID Provider account they sign in
// with: the issuer and its stable subject.
type OIDCIdentity struct {
	bun.BaseModel `bun:"table:oidc_identities"`

	Issuer    string    `bun:"issuer,pk"`
	Subject   string    `bun:"subject,pk"`
	UserID    string    `bun:"user_id"`
	CreatedAt time.Time `bun:"created_at"`
}

// ExternalSignIn is a sign-in an OpenID Provider vouched for, with the
// role the user's groups map to now.
type ExternalSignIn struct {
	Issuer, Subject string
	// Username and Email name a user made at the first sign-in; later
	// sign-ins keep the user's own.
	Username, Email string
	Role            access.Role
}

// SignInExternal returns the user linked to e's issuer and subject with
// its role set to e.Role, making the user (without a password) and the
// link at the first sign-in; created says which. The role is the user's
// row, which every session reads on each request, so a changed role holds
// for the user's open sessions at once. A username or email already taken
// is a *ConflictError.
func (s *Store) SignInExternal(ctx context.Context, e ExternalSignIn) (u *User, created bool, err error) {
	u, created, err = s.signInExternal(ctx, e)
	if err != nil {
		// Two first sign-ins of one person at once: the loser's link
		// clashed; the winner's user is theirs too.
		if _, again := s.UserByIdentity(ctx, e.Issuer, e.Subject); again == nil {
			return s.signInExternal(ctx, e)
		}
	}
	return u, created, err
}

func (s *Store) signInExternal(ctx context.Context, e ExternalSignIn) (u *User, created bool, err error) {
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		u, err = userByIdentity(ctx, tx, e.Issuer, e.Subject)
		switch {
		case err == nil:
			if u.Role == e.Role {
				return nil
			}
			u.Role = e.Role
			_, err := tx.NewUpdate().Model(u).Column("role").WherePK().Exec(ctx)
			if err != nil {
				return fmt.Errorf("set role of user %q: %w", u.Username, err)
			}
			return nil
		case !errors.Is(err, ErrNotFound):
			return err
		}
		u, created = &User{Username: e.Username, Email: e.Email, Role: e.Role}, true
		if err := s.createUser(ctx, tx, u); err != nil {
			return err
		}
		link := &OIDCIdentity{Issuer: e.Issuer, Subject: e.Subject, UserID: u.ID, CreatedAt: s.now()}
		if _, err := tx.NewInsert().Model(link).Exec(ctx); err != nil {
			return fmt.Errorf("link user %q to its identity provider: %w", u.Username, err)
		}
		return nil
	})
	return u, created, err
}

// UserByIdentity returns the user linked to issuer and subject.
func (s *Store) UserByIdentity(ctx context.Context, issuer, subject string) (*User, error) {
	return userByIdentity(ctx, s.db, issuer, subject)
}

func userByIdentity(ctx context.Context, db bun.IDB, issuer, subject string) (*User, error) {
	u := new(User)
	q := db.NewSelect().Model(u).
		Where("id = (SELECT user_id FROM oidc_identities WHERE issuer = ? AND subject = ?)", issuer, subject)
	if err := scanOne(ctx, q, fmt.Sprintf("user of %s subject %q", issuer, subject)); err != nil {
		return nil, err
	}
	return u, nil
}

// DeleteSessionsOfUser signs a user out everywhere, revoking the tokens
// issued from those sessions, and returns how many sessions ended.
func (s *Store) DeleteSessionsOfUser(ctx context.Context, userID string) (int64, error) {
	var n int64
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var hashes []string
		if err := tx.NewSelect().Model((*Session)(nil)).Column("id_hash").Where("user_id = ?", userID).Scan(ctx, &hashes); err != nil {
			return err
		}
		res, err := tx.NewDelete().Model((*Session)(nil)).Where("user_id = ?", userID).Exec(ctx)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		parents := make([]string, len(hashes))
		for i, h := range hashes {
			parents[i] = ParentSession(h)
		}
		_, err = revokeIssuedFrom(ctx, tx, parents, s.now())
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("end the sessions of user %s: %w", userID, err)
	}
	return n, nil
}
