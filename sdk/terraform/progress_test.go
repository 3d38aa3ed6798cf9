package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// The logs under testdata/logs are real terraform 1.11.4 output (-no-color):
// apply.log and destroy-after-stale-lock.log from the Job container run
// of TestJobContainerRunsTerraformAgainstTheSandboxState, locked.log from
// a lock held by someone else, precondition.stderr from a failed
// precondition, sigterm.log from an apply interrupted with SIGTERM.
func readLog(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "logs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// upTo cuts log after the n-th line containing s.
func upTo(log, s string, n int) string {
	lines := strings.SplitAfter(log, "\n")
	for i, l := range lines {
		if strings.Contains(l, s) {
			if n--; n == 0 {
				return strings.Join(lines[:i+1], "")
			}
		}
	}
	return log
}

func TestSummarizeLogCountsProgressOfTheLastAttempt(t *testing.T) {
	apply := readLog(t, "apply.log")
	for _, tc := range []struct {
		name, log, message string
		progress           int
	}{
		{"before the plan", upTo(apply, "Initializing modules", 1), "terraform apply: initializing and planning", 0},
		{"planned", upTo(apply, "Plan: 6 to add", 1), "terraform apply: 0 of 6 resources created", 0},
		{"half created", upTo(apply, "Creation complete", 3), "terraform apply: 3 of 6 resources created", 50},
		{"all created, not yet ended", apply, "terraform apply: 6 of 6 resources created", 99},
		{"nothing yet", "", "terraform apply: starting", 0},
		{"no changes", "Terraform has been successfully initialized!\nNo changes. Your infrastructure matches the configuration.\n",
			"terraform apply: no changes to make", 0},
		{"mixed plan", "Plan: 1 to add, 1 to change, 1 to destroy.\n" +
			"x.a: Destroying... [id=1]\nx.a: Destruction complete after 1s\n" +
			"x.b: Modifying... [id=2]\nx.b: Modifications complete after 2s [id=2]\n",
			"terraform apply: 2 of 3 resource changes done (1 to add, 1 to change, 1 to destroy)", 66},
		{"a new attempt starts over", apply + attemptMarker + "terraform apply, attempt 2 ---\n" + upTo(apply, "Plan: 6 to add", 1),
			"terraform apply: 0 of 6 resources created", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := summarizeLog(strings.NewReader(tc.log))
			if got := s.runningMessage(Apply); got != tc.message {
				t.Errorf("message %q, want %q", got, tc.message)
			}
			if got := s.progress(); got != tc.progress {
				t.Errorf("progress %d, want %d", got, tc.progress)
			}
			if len(s.tail) > LogTailLines {
				t.Errorf("tail of %d lines, want at most %d", len(s.tail), LogTailLines)
			}
		})
	}
}

func TestFinishedStatusFromRealLogs(t *testing.T) {
	for _, tc := range []struct {
		name, log string
		a         Action
		ok        bool
		state     sdk.State
		class     sdk.ErrorClass
		message   string
	}{
		{"apply succeeded", "apply.log", Apply, true, sdk.Succeeded, sdk.NoError,
			"terraform apply: complete, 6 added, 0 changed, 0 destroyed"},
		{"destroy after removing a stale lock counts the retry only", "destroy-after-stale-lock.log", Destroy, true,
			sdk.Succeeded, sdk.NoError, "terraform destroy: complete, 6 resources destroyed"},
		{"failed precondition", "precondition.stderr", Apply, false, sdk.Failed, sdk.UserFixable,
			"terraform apply failed: Resource precondition failed: The name must be longer than 3 characters; set inputs.name."},
		{"interrupted by SIGTERM", "sigterm.log", Apply, false, sdk.Failed, sdk.Retryable,
			"terraform apply failed: execution halted (and 2 more errors; see the log)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := finishedStatus(tc.a, tc.ok, summarizeLog(strings.NewReader(readLog(t, tc.log))), "fallback")
			if st.State != tc.state || st.ErrorClass != tc.class || st.Message != tc.message {
				t.Errorf("got %s/%s %q, want %s/%s %q", st.State, st.ErrorClass, st.Message, tc.state, tc.class, tc.message)
			}
			if tc.ok && st.Progress != 100 {
				t.Errorf("progress %d of a finished run, want 100", st.Progress)
			}
		})
	}
	if st := finishedStatus(Apply, false, logSummary{}, "fallback"); st.Message != "fallback" || st.ErrorClass != sdk.Retryable {
		t.Errorf("a failure without terraform errors: %+v, want the fallback message, RETRYABLE", st)
	}
}

func TestParseLockInfoFromARealLockError(t *testing.T) {
	li, ok := parseLockInfo(readLog(t, "locked.log"))
	created := time.Date(2026, 11, 30, 7, 36, 58, 704832449, time.UTC)
	if !ok || li.ID != "0b7d6a35-6a3e-1c7d-9a35-218704740715" || li.Who != "alice@laptop" ||
		li.Operation != "OperationTypeApply" || !li.Created.Equal(created) {
		t.Fatalf("lock info %+v (ok %v)", li, ok)
	}
	msg := lockedMessage(Apply, li)
	for _, want := range []string{"alice@laptop", "2026-11-30T07:36:58Z", "terraform force-unlock " + li.ID} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if _, ok := parseLockInfo(readLog(t, "apply.log")); ok {
		t.Error("found a lock in a log without a lock error")
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		errs []string
		want sdk.ErrorClass
	}{
		{nil, sdk.Retryable},
		{[]string{"Error acquiring the state lock: ..."}, sdk.Retryable},
		{[]string{`creating EKS Cluster: operation error EKS: CreateCluster, https response error StatusCode: 0, dial tcp: lookup eks.eu-north-1.amazonaws.com: no such host`}, sdk.Retryable},
		{[]string{"Reference to undeclared resource: A managed resource ..."}, sdk.Terminal},
		{[]string{"Unsupported argument: An argument named \"foo\" is not expected here."}, sdk.Terminal},
		{[]string{"creating EC2 VPC: operation error EC2: CreateVpc, api error UnauthorizedOperation: You are not authorized"}, sdk.UserFixable},
		{[]string{"Invalid value for variable: node_count must be odd"}, sdk.UserFixable},
		{[]string{"Unsupported argument: ...", "Throttling: Rate exceeded"}, sdk.Retryable},
	} {
		if got := classify(tc.errs); got != tc.want {
			t.Errorf("classify(%q) = %s, want %s", tc.errs, got, tc.want)
		}
	}
}

func TestValidateRunNamesEveryBadField(t *testing.T) {
	r := Run{ID: "Bad_ID", Action: "plan", Module: Module{Files: map[string][]byte{"../escape.tf": nil}},
		Env: map[string]string{"TF_VAR_password": "x", "1BAD": "x", "AWS_REGION": "eu-north-1"}}
	err := validateRun(r)
	if sdk.KindOf(err) != sdk.KindInvalidInput {
		t.Fatalf("got %v, want invalid input", err)
	}
	fields := map[string]bool{}
	for _, f := range sdk.FieldErrors(err) {
		fields[f.Field] = true
	}
	for _, want := range []string{"id", "action", "module.files.../escape.tf", "env.TF_VAR_password", "env.1BAD"} {
		if !fields[want] {
			t.Errorf("no field error for %s in %v", want, err)
		}
	}
	if fields["env.AWS_REGION"] || len(fields) != 5 {
		t.Errorf("field errors %v, want exactly the 5 bad fields", fields)
	}
	long := Run{ID: strings.Repeat("a", MaxIDLength+1), Action: Apply, Module: Module{Files: map[string][]byte{"main.tf": nil}}}
	if err := validateRun(long); sdk.KindOf(err) != sdk.KindInvalidInput {
		t.Errorf("an ID of %d characters: %v, want invalid input (job names are labels)", MaxIDLength+1, err)
	}
	long.ID = long.ID[1:]
	if err := validateRun(long); err != nil {
		t.Errorf("an ID of %d characters: %v, want valid", MaxIDLength, err)
	}
}
