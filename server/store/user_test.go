package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/together"
	"github.com/ochestra-tech/kubeopera/server/access"
)

func TestUserRoundTripLowercasesEmail(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := useFakeClock(s)
		exists, err := s.SuperAdminExists(ctx)
		if err != nil || exists {
			t.Fatalf("SuperAdminExists on an empty table = %v, %v; want false", exists, err)
		}
		in := User{Email: "Admin@Example.COM", Username: "admin", PasswordHash: "$2a$10$not-a-real-hash",
			Role: access.PlatformAdmin, SuperAdmin: true}
		if err := s.CreateUser(ctx, &in); err != nil {
			t.Fatal(err)
		}
		if in.ID == "" || in.CreatedAt != clock.Now() || in.Email != "admin@example.com" {
			t.Errorf("CreateUser set ID %q, CreatedAt %v, Email %q", in.ID, in.CreatedAt, in.Email)
		}
		got, err := s.GetUser(ctx, in.ID)
		if err != nil {
			t.Fatal(err)
		}
		got.CreatedAt = utc(got.CreatedAt)
		if !reflect.DeepEqual(*got, in) {
			t.Errorf("GetUser =\n %+v\nwant\n %+v", *got, in)
		}
		if exists, err := s.SuperAdminExists(ctx); err != nil || !exists {
			t.Errorf("SuperAdminExists after creating one = %v, %v; want true", exists, err)
		}
		if _, err := s.GetUser(ctx, "missing"); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetUser(missing) = %v, want ErrNotFound", err)
		}
	})
}

func TestUserUniquenessIsReportedPerField(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		admin := &User{Email: "root@example.com", Username: "root", PasswordHash: "h", Role: access.PlatformAdmin, SuperAdmin: true}
		if err := s.CreateUser(ctx, admin); err != nil {
			t.Fatal(err)
		}
		// Viewers and plain admins are not limited in number.
		for i, role := range []access.Role{access.Viewer, access.Viewer, access.PlatformAdmin} {
			u := &User{Email: fmt.Sprintf("u%d@example.com", i), Username: fmt.Sprintf("user-%d", i), PasswordHash: "h", Role: role}
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatalf("user %d (%s): %v", i, role, err)
			}
		}
		for _, tc := range []struct {
			name           string
			user           User
			field, message string
		}{
			{"email, in another case", User{Email: "ROOT@example.com", Username: "other"}, "email",
				`a user with email "root@example.com" already exists`},
			{"username", User{Email: "other@example.com", Username: "root"}, "username", `a user named "root" already exists`},
			{"a second super-admin", User{Email: "second@example.com", Username: "second", SuperAdmin: true}, "super_admin",
				"a super-admin already exists"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				u := tc.user
				u.PasswordHash, u.Role = "h", access.PlatformAdmin
				assertConflict(t, s.CreateUser(ctx, &u), tc.field, tc.message)
			})
		}
	})
}

func TestCreateUserRefusesInvalidRows(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for _, tc := range []struct {
			name string
			user User
		}{
			{"an unknown role", User{Email: "a@example.com", Username: "a-user", Role: "root"}},
			{"a super-admin who is only a viewer", User{Email: "b@example.com", Username: "b-user", Role: access.Viewer, SuperAdmin: true}},
			{"a username wider than its column", User{Email: "c@example.com", Username: strings.Repeat("c", MaxUsernameLength+1),
				Role: access.Viewer}},
		} {
			u := tc.user
			u.PasswordHash = "h"
			err := s.CreateUser(ctx, &u)
			var conflict *ConflictError
			if err == nil || errors.As(err, &conflict) {
				t.Errorf("%s: CreateUser = %v, want a non-conflict error", tc.name, err)
			}
		}
		if n, err := s.db.NewSelect().Model((*User)(nil)).Count(ctx); err != nil || n != 0 {
			t.Errorf("users has %d rows (%v), want 0", n, err)
		}
	})
}

// TestConcurrentSuperAdminCreationAdmitsExactlyOne is the guarantee the
// partial unique index gives: racers with distinct emails and usernames, so
// only the super-admin rule can stop them, and one wins.
func TestConcurrentSuperAdminCreationAdmitsExactlyOne(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		const racers = 20
		errs := make([]error, racers)
		together.Run(racers, func(i int) {
			errs[i] = s.CreateUser(ctx, &User{Email: fmt.Sprintf("admin%02d@example.com", i),
				Username: fmt.Sprintf("admin-%02d", i), PasswordHash: "h", Role: access.PlatformAdmin, SuperAdmin: true})
		})

		var won, conflicts int
		for i, err := range errs {
			var conflict *ConflictError
			switch {
			case err == nil:
				won++
			case errors.As(err, &conflict) && conflict.Field == "super_admin":
				conflicts++
			default:
				t.Errorf("racer %d: %v", i, err)
			}
		}
		if won != 1 || conflicts != racers-1 {
			t.Errorf("%d creations succeeded and %d conflicted; want 1 and %d", won, conflicts, racers-1)
		}
		var admins int
		if err := s.db.NewRaw("SELECT count(*) FROM users WHERE super_admin").Scan(ctx, &admins); err != nil {
			t.Fatal(err)
		}
		if admins != 1 {
			t.Errorf("%d super-admin rows in users, want 1", admins)
		}
	})
}
