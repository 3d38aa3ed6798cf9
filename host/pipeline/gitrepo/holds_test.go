package gitrepo

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/gitserver"
)

// fleet is a repository on a loopback git server to which cluster "prod"
// pushed its tree; base is the branch tip before that push.
type fleet struct {
	s      *gitserver.Server
	url    string
	base   string
	pushed Pushed
	pushes int
}

func newFleet(t *testing.T) *fleet {
	s := gitserver.Start(t, gitserver.Options{Username: user, Password: token})
	f := &fleet{s: s, url: fleetRepo(t, s)}
	f.base = s.Head(t, "fleet", "main")
	f.pushed = f.publish(t, "clusters/prod", map[string]string{"clusters/prod/apps/kustomization.yaml": "resources: [server.yaml]\n",
		"clusters/prod/apps/server.yaml": "kind: Deployment\n"})
	return f
}

// publish pushes files under path as KubeOpera does and returns what
// Holds is given for it.
func (f *fleet) publish(t *testing.T, path string, files map[string]string) Pushed {
	t.Helper()
	// A message of its own: the same tree on the same parent within one
	// second would otherwise make the very same commit.
	p := Push{URL: f.url, Path: path, Files: map[string][]byte{}, Message: "push " + strconv.Itoa(f.pushes)}
	f.pushes++
	for k, v := range files {
		p.Files[k] = []byte(v)
	}
	res, err := Publish(testCtx(t), goodAuth, p)
	if err != nil || !res.Changed {
		t.Fatalf("Publish %s: %+v, %v", path, res, err)
	}
	return Pushed{URL: f.url, Path: path, Commit: res.Commit, Files: p.Files}
}

func TestHoldsDecidesByAncestryOnTheRealRepository(t *testing.T) {
	f := newFleet(t)
	// Other clusters push on top, as when a fleet onboards at once.
	second := f.publish(t, "clusters/second", map[string]string{"clusters/second/a.yaml": "a\n"}).Commit
	third := f.s.CommitDirect(t, "fleet", "main", "clusters/third/a.yaml", "a\n", "third cluster")

	tests := []struct {
		name     string
		revision string
		holds    bool
		how      How
		why      string
	}{
		{name: "the pushed commit itself holds it", revision: f.pushed.Commit, holds: true, how: Same, why: "is the pushed commit"},
		{name: "a later commit on top holds it", revision: second, holds: true, how: Ancestry, why: short12(second) + " descends from " + short12(f.pushed.Commit)},
		{name: "a commit two pushes later holds it", revision: third, holds: true, how: Ancestry, why: "descends from"},
		{name: "the commit before the push does not", revision: f.base, how: Ancestry, why: short12(f.base) + " predates " + short12(f.pushed.Commit)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Holds(testCtx(t), goodAuth, f.pushed, tt.revision)
			if err != nil {
				t.Fatalf("Holds: %v", err)
			}
			if v.Holds != tt.holds || v.How != tt.how || !strings.Contains(v.Why, tt.why) {
				t.Errorf("Holds = %+v, want holds %v by %s saying %q", v, tt.holds, tt.how, tt.why)
			}
		})
	}
}

func TestHoldsAfterAForcePushThatDroppedTheCommit(t *testing.T) {
	t.Run("the same files re-pushed on the rewritten branch hold it", func(t *testing.T) {
		f := newFleet(t)
		f.s.ResetBranch(t, "fleet", "main", f.base)
		files := map[string]string{}
		for k, v := range f.pushed.Files {
			files[k] = string(v)
		}
		again := f.publish(t, "clusters/prod", files).Commit
		v, err := Holds(testCtx(t), goodAuth, f.pushed, again)
		if err != nil || !v.Holds || v.How != Content || !strings.Contains(v.Why, "clusters/prod at "+short12(again)+" has the pushed files") {
			t.Errorf("Holds = %+v, %v; want held by content", v, err)
		}
	})
	t.Run("other files under the path do not hold it", func(t *testing.T) {
		f := newFleet(t)
		f.s.ResetBranch(t, "fleet", "main", f.base)
		rewritten := f.s.CommitDirect(t, "fleet", "main", "clusters/prod/apps/server.yaml", "kind: Other\n", "rewrite")
		v, err := Holds(testCtx(t), goodAuth, f.pushed, rewritten)
		want := short12(f.pushed.Commit) + " is no longer on branch main (its history was rewritten), and clusters/prod at " +
			short12(rewritten) + " differs from what was pushed"
		if err != nil || v.Holds || v.How != Content || v.Why != want {
			t.Errorf("Holds = %+v, %v; want not held, saying %q", v, err, want)
		}
	})
	t.Run("without the pushed files nothing is claimed", func(t *testing.T) {
		f := newFleet(t)
		f.s.ResetBranch(t, "fleet", "main", f.base)
		p := f.pushed
		p.Files = nil
		v, err := Holds(testCtx(t), goodAuth, p, f.base)
		if err != nil || v.Holds || !strings.Contains(v.Why, "not known to compare") {
			t.Errorf("Holds = %+v, %v; want not held for want of the files", v, err)
		}
	})
	t.Run("a revision that left the branch is unknown", func(t *testing.T) {
		f := newFleet(t)
		later := f.publish(t, "clusters/second", map[string]string{"clusters/second/a.yaml": "a\n"}).Commit
		f.s.ResetBranch(t, "fleet", "main", f.pushed.Commit)
		v, err := Holds(testCtx(t), goodAuth, f.pushed, later)
		if err != nil || v.Holds || v.How != Unknown || !strings.Contains(v.Why, short12(later)+" is no longer on branch main") {
			t.Errorf("Holds = %+v, %v; want unknown", v, err)
		}
	})
}

func TestHoldsErrorsSayWhatToFix(t *testing.T) {
	f := newFleet(t)
	tests := []struct {
		name     string
		auth     Auth
		pushed   func(Pushed) Pushed
		revision string
		kind     error
		want     string
	}{
		{name: "a revision that is no SHA", auth: goodAuth, revision: "main", want: `"main" is not a full commit SHA`},
		{name: "wrong credentials", auth: Auth{Username: user, Password: "wrong-" + token}, revision: f.base,
			kind: ErrAuthentication, want: "check the username and password/token"},
		{name: "a branch that is gone", auth: goodAuth, pushed: func(p Pushed) Pushed { p.Branch = "gone"; return p },
			revision: f.base, kind: ErrNotFound, want: `has no branch "gone", which held the pushed tree`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := f.pushed
			if tt.pushed != nil {
				p = tt.pushed(p)
			}
			_, err := Holds(testCtx(t), tt.auth, p, tt.revision)
			if err == nil || !strings.Contains(err.Error(), tt.want) || (tt.kind != nil && !errors.Is(err, tt.kind)) {
				t.Fatalf("err = %v, want %v saying %q", err, tt.kind, tt.want)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("error %q carries the token", err)
			}
		})
	}
}

func short12(sha string) string { return sha[:12] }
