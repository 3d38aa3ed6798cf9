package store

import (
	"errors"
	"fmt"
	"testing"
)

// codedError stands in for modernc.org/sqlite's *Error, which carries the
// extended result code.
type codedError struct {
	msg  string
	code int
}

func (e *codedError) Error() string { return e.msg }
func (e *codedError) Code() int     { return e.code }

func TestSQLiteUniqueIndexReadsBothDriversMessages(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"modernc, name",
			&codedError{"constraint failed: UNIQUE constraint failed: clusters.name (2067)", 2067}, indexClusterName},
		{"modernc, wrapped by a caller",
			fmt.Errorf("insert: %w", &codedError{"constraint failed: UNIQUE constraint failed: clusters.is_host (2067)", 2067}),
			indexClusterHost},
		{"mattn, message only", errors.New("UNIQUE constraint failed: api_tokens.hash"), indexTokenHash},
		{"label", errors.New("UNIQUE constraint failed: cloud_credentials.label"), indexCredLabel},
		{"cluster uid", errors.New("UNIQUE constraint failed: clusters.cluster_uid"), indexClusterUID},
		{"primary key is not a field a user chose",
			&codedError{"constraint failed: UNIQUE constraint failed: clusters.id (1555)", 1555}, ""},
		{"a unique code with an unknown column", &codedError{"UNIQUE constraint failed: other.x (2067)", 2067}, ""},
		{"another constraint",
			&codedError{"constraint failed: CHECK constraint failed: clusters_source_check (275)", 275}, ""},
		{"not a constraint at all", errors.New("database is locked"), ""},
	} {
		if got := violatedUniqueIndex(tc.err); got != tc.want {
			t.Errorf("%s: violatedUniqueIndex = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestAsConflictKeepsOtherErrorsAndTheCause(t *testing.T) {
	other := errors.New("disk I/O error")
	if got := asConflict(other, nil); got != other {
		t.Errorf("asConflict(non-conflict) = %v, want the error unchanged", got)
	}
	cause := errors.New("UNIQUE constraint failed: clusters.name")
	err := asConflict(cause, map[string]string{indexClusterName: "prod"})
	var conflict *ConflictError
	if !errors.As(err, &conflict) || conflict.Field != "name" || conflict.Error() != `a cluster named "prod" already exists` {
		t.Fatalf("asConflict = %#v", err)
	}
	if !errors.Is(err, cause) {
		t.Errorf("the ConflictError does not unwrap to the driver's error")
	}
}
