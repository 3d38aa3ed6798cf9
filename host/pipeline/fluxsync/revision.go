package fluxsync

import (
	"context"
	"strings"
)

// Holds decides whether the commit sha, named by a Flux revision and
// other than the cluster's own commit, holds that commit; why says how, for
// the status message (e.g. "1f94951a0c3d descends from 909d2f7706fa").
// Several clusters pushing to one branch each add a commit on top of the
// others', and Flux fetches only the newest: a cluster is installed when
// Flux applied a commit that holds its own, not only that very commit.
type Holds func(ctx context.Context, sha string) (holds bool, why string, err error)

// judge answers, for one Check, whether the revisions Flux reports hold the
// cluster's commit, asking holds once per revision.
type judge struct {
	ctx    context.Context
	commit string
	holds  Holds
	seen   map[string]verdict
}

type verdict struct {
	holds bool
	why   string // "" for the commit itself
}

func newJudge(ctx context.Context, commit string, holds Holds) *judge {
	return &judge{ctx: ctx, commit: commit, holds: holds, seen: map[string]verdict{}}
}

// of returns the verdict on revision ("<branch>@sha1:<sha>"). A revision
// that holds holds is asked only when it is not the commit itself; an error
// is a verdict of "not yet", with the error as its why, so the wait (and
// its timeout) goes on and the message says what went wrong.
func (j *judge) of(revision string) verdict {
	sha := revisionSHA(revision)
	switch {
	case sha == "":
		return verdict{}
	case revisionNames(revision, j.commit):
		return verdict{holds: true}
	case j.holds == nil:
		return verdict{}
	}
	if v, ok := j.seen[sha]; ok {
		return v
	}
	ok, why, err := j.holds(j.ctx, strings.ToLower(sha))
	v := verdict{holds: ok && err == nil, why: why}
	if err != nil {
		v.why = "cannot tell whether it holds " + shortSHA(j.commit) + ": " + err.Error()
	}
	j.seen[sha] = v
	return v
}

// contains reports whether revision holds the cluster's commit.
func (j *judge) contains(revision string) bool { return j.of(revision).holds }

// explain is revision followed by how it relates to the commit when it is
// another commit, e.g. "main@sha1:1f94… (1f94951a0c3d predates 909d2f7706fa)".
func (j *judge) explain(revision string) string {
	if v := j.of(revision); v.why != "" {
		return revision + " (" + v.why + ")"
	}
	return revision
}

// revisionNames reports whether a Flux revision names commit. Flux v1
// writes "<branch>@sha1:<sha>" ("main@sha1:0a1b..."); commit is the full
// SHA. The pre-v1 form "<branch>/<sha>" is accepted too.
func revisionNames(revision, commit string) bool {
	sha := revisionSHA(revision)
	return sha != "" && commit != "" && strings.EqualFold(sha, commit)
}

// revisionSHA is the commit a Flux revision names ("" for none).
func revisionSHA(revision string) string {
	if i := strings.LastIndexAny(revision, ":/"); i >= 0 {
		return revision[i+1:]
	}
	return revision
}
