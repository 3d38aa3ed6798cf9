package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// ErrNotFound is wrapped by every error for a row that does not exist, as in
// `cluster "abc": not found`; test for it with errors.Is.
var ErrNotFound = errors.New("not found")

// ConflictError reports a write that would break a uniqueness rule, such as
// a second cluster with the same name. Field names the rule ("name",
// "is_host", "cluster_uid", "label" or "hash") and Message says, in words a
// user can act on, what already exists.
type ConflictError struct {
	Field   string
	Message string
	cause   error
}

// Error returns Message.
func (e *ConflictError) Error() string {
	return e.Message
}

// Unwrap returns the driver's error.
func (e *ConflictError) Unwrap() error {
	return e.cause
}

// Unique indexes the migrations create. PostgreSQL names the violated index
// in its error; SQLite names the indexed columns instead, hence the columns.
// A change to an index in the migrations must be made here too (the conflict
// tests fail otherwise).
const (
	indexClusterName = "clusters_name_key"
	indexClusterHost = "clusters_one_host"
	indexClusterUID  = "clusters_cluster_uid_key"
	indexCredLabel   = "cloud_credentials_label_key"
	indexTokenHash   = "api_tokens_hash_key"
)

// sqliteConstraintUnique is SQLite's extended result code for a unique
// index violation (a primary key clash has another, 1555).
const sqliteConstraintUnique = 2067

var sqliteUniqueColumns = map[string]string{
	"clusters.name":           indexClusterName,
	"clusters.is_host":        indexClusterHost,
	"clusters.cluster_uid":    indexClusterUID,
	"cloud_credentials.label": indexCredLabel,
	"api_tokens.hash":         indexTokenHash,
}

// violatedUniqueIndex returns the name of the unique index err reports as
// violated, or "" when err is not a unique violation of one of our indexes.
func violatedUniqueIndex(err error) string {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		if pgErr.Field('C') != "23505" { // unique_violation
			return ""
		}
		return pgErr.Field('n')
	}
	return sqliteUniqueIndex(err)
}

// sqliteUniqueIndex recognises "UNIQUE constraint failed: clusters.name" in
// the error of either SQLite driver sqliteshim may pick (modernc, or
// mattn/go-sqlite3 on platforms modernc lacks), checking the extended result
// code as well when the driver exposes it.
func sqliteUniqueIndex(err error) string {
	var coded interface{ Code() int }
	if errors.As(err, &coded) && coded.Code() != sqliteConstraintUnique {
		return ""
	}
	const marker = "UNIQUE constraint failed: "
	msg := err.Error()
	i := strings.Index(msg, marker)
	if i < 0 {
		return ""
	}
	cols := msg[i+len(marker):]
	if end := strings.IndexAny(cols, " ,("); end >= 0 {
		cols = cols[:end]
	}
	return sqliteUniqueColumns[cols]
}

// conflictMessages says, per unique index, what a violation means for the
// row being written; subject is that row's value for the indexed column.
var conflictMessages = map[string]struct {
	field   string
	message func(subject string) string
}{
	indexClusterName: {"name", func(v string) string {
		return fmt.Sprintf("a cluster named %q already exists", v)
	}},
	indexClusterHost: {"is_host", func(string) string {
		return "a host cluster is already registered; only one cluster can be the host"
	}},
	indexClusterUID: {"cluster_uid", func(v string) string {
		return fmt.Sprintf("this Kubernetes cluster (uid %s) is already registered under another name", v)
	}},
	indexCredLabel: {"label", func(v string) string {
		return fmt.Sprintf("a credential labelled %q already exists", v)
	}},
	indexTokenHash: {"hash", func(string) string {
		return "an API token with the same hash already exists"
	}},
}

// asConflict turns a unique violation into a *ConflictError, taking the
// offending value from subjects (index name → value); any other error is
// returned unchanged.
func asConflict(err error, subjects map[string]string) error {
	index := violatedUniqueIndex(err)
	m, ok := conflictMessages[index]
	if !ok {
		return err
	}
	return &ConflictError{Field: m.field, Message: m.message(subjects[index]), cause: err}
}

// sqliteConstraintForeignKey is SQLite's extended result code for a
// violated reference.
const sqliteConstraintForeignKey = 787

// isForeignKeyViolation reports whether err is a write refused because it
// would leave a reference to a missing row.
func isForeignKeyViolation(err error) bool {
	if err == nil {
		return false
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('C') == "23503" // foreign_key_violation
	}
	var coded interface{ Code() int }
	if errors.As(err, &coded) && coded.Code() != sqliteConstraintForeignKey {
		return false
	}
	return strings.Contains(err.Error(), "FOREIGN KEY constraint failed")
}

// scanOne runs q, which selects at most one row into its model; what names
// the row in errors, which wrap ErrNotFound when there is none.
func scanOne(ctx context.Context, q *bun.SelectQuery, what string) error {
	err := q.Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("get %s: %w", what, err)
	}
	return nil
}

// oneRow turns the result of a write meant to touch exactly one row into an
// error: the write's own, wrapped with doing, or one wrapping ErrNotFound,
// naming the row by what, when no row matched.
func oneRow(res sql.Result, err error, doing, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", doing, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", doing, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return nil
}
