package api

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// NewUser checks a new platform user's fields with the rules the setup
// endpoint applies and returns the row to store, its password hashed with
// bcrypt. The error names the field at fault, never the password.
func NewUser(username, email, password string, role Role) (*store.User, error) {
	if _, err := ParseRole(string(role)); err != nil {
		return nil, fmt.Errorf("role: %w", err)
	}
	var bad []string
	for _, f := range []*FieldProblem{checkEmail("email", email), checkUsername("username", username),
		checkPassword("password", password)} {
		if f != nil {
			bad = append(bad, f.Field+" "+f.Message)
		}
	}
	if len(bad) > 0 {
		return nil, errors.New(strings.Join(bad, "; "))
	}
	hash, err := HashPassword(password)
	if err != nil {
		return nil, err
	}
	return &store.User{Username: username, Email: email, PasswordHash: hash, Role: role}, nil
}

// HashPassword is the bcrypt hash stored for password.
func HashPassword(password string) (string, error) {
	hash, err := bcrypt.GenerateFromPassword([]byte(password), passwordHashCost)
	if err != nil {
		return "", fmt.Errorf("hash the password: %w", err)
	}
	return string(hash), nil
}
