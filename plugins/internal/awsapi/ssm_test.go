package awsapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/sdk"
)

const kubeconfigParam = "/kubeopera/c-123/kubeconfig"

// counting counts the reads WaitParameter makes through the client.
type counting struct {
	SSM
	reads atomic.Int32
}

func (c *counting) GetParameter(ctx context.Context, name string, decrypt bool) (string, error) {
	c.reads.Add(1)
	return c.SSM.GetParameter(ctx, name, decrypt)
}

// ssmFor returns the SSM client for p, through Config and the
// environment, wrapped to count reads.
func ssmFor(t *testing.T, s *fakeaws.Server, p fakeaws.Principal) *counting {
	withEnv(t, s)
	return &counting{SSM: NewSSM(newConfig(t, accessKey(p)))}
}

func TestWaitParameterReturnsTheDecryptedValueOnceItAppears(t *testing.T) {
	s := fakeaws.Start(t)
	alice := s.IAM.AddUser(account, "alice")
	s.SSM.PutLater(kubeconfigParam, fakeaws.SecureString, "apiVersion: v1\nkind: Config\n", fakeaws.Appear{AfterCalls: 3})
	c := ssmFor(t, s, alice)

	got, err := WaitParameter(context.Background(), c, kubeconfigParam, 5*time.Millisecond, 10*time.Second)
	if err != nil {
		t.Fatalf("WaitParameter: %v", err)
	}
	if got != "apiVersion: v1\nkind: Config\n" {
		t.Errorf("value = %q, want the decrypted kubeconfig", got)
	}
	if n := c.reads.Load(); n != 4 || s.SSM.Calls(kubeconfigParam) != 4 {
		t.Errorf("reads = %d, fake answered %d; want 4 (3 not found, then found)", n, s.SSM.Calls(kubeconfigParam))
	}
}

// Five throttles outlast the client's three attempts for one read: the poll
// loop reads again and the second read's retries succeed.
func TestWaitParameterRidesOutThrottling(t *testing.T) {
	s := fakeaws.Start(t)
	alice := s.IAM.AddUser(account, "alice")
	s.SSM.Put(kubeconfigParam, fakeaws.SecureString, "kc")
	s.SSM.Throttle(5)
	c := ssmFor(t, s, alice)

	got, err := WaitParameter(context.Background(), c, kubeconfigParam, 5*time.Millisecond, 10*time.Second)
	if err != nil || got != "kc" {
		t.Fatalf("WaitParameter = %q, %v; want kc", got, err)
	}
	if n := c.reads.Load(); n != 2 || s.SSM.Calls(kubeconfigParam) != 1 {
		t.Errorf("reads = %d, answered = %d; want 2 reads (3 + 3 attempts) and 1 answer", n, s.SSM.Calls(kubeconfigParam))
	}
}

func TestWaitParameterTimesOut(t *testing.T) {
	cases := []struct {
		name        string
		throttles   int
		wantLastErr string
	}{
		{"parameter never written", 0, ""},
		{"throttled throughout", 1 << 20, "throttling"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := fakeaws.Start(t)
			s.SSM.Throttle(tc.throttles)
			c := ssmFor(t, s, s.IAM.AddUser(account, "alice"))
			const timeout = 300 * time.Millisecond
			_, err := WaitParameter(context.Background(), c, kubeconfigParam, 20*time.Millisecond, timeout)

			var te *WaitTimeoutError
			if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error = %v, want a *WaitTimeoutError matching context.DeadlineExceeded", err)
			}
			if te.Name != kubeconfigParam || te.Waited < timeout || te.Polls < 2 {
				t.Errorf("timeout error = %+v, want the name, >= %s waited and several polls", te, timeout)
			}
			msg := err.Error()
			if !strings.Contains(msg, kubeconfigParam) || !strings.Contains(msg, "did not appear within "+te.Waited.Round(time.Millisecond).String()) {
				t.Errorf("message %q does not name the parameter and the wait", msg)
			}
			if (te.LastErr == nil) != (tc.wantLastErr == "") || (te.LastErr != nil && !strings.Contains(te.LastErr.Error(), tc.wantLastErr)) {
				t.Errorf("LastErr = %v, want one mentioning %q", te.LastErr, tc.wantLastErr)
			}
		})
	}
}

func TestWaitParameterStopsAtOnceOnARefusedCredential(t *testing.T) {
	s := fakeaws.Start(t)
	alice := s.IAM.AddUser(account, "alice")
	wrong := alice
	wrong.SecretAccessKey = strings.Repeat("w", 40)
	cases := map[string]fakeaws.Principal{"unknown key": {AccessKeyID: "AKIAZZZZZZZZZZZZZZZZ", SecretAccessKey: alice.SecretAccessKey}, "wrong secret": wrong}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			c := ssmFor(t, s, p)
			_, err := WaitParameter(context.Background(), c, kubeconfigParam, 5*time.Millisecond, time.Minute)
			assertInvalidInput(t, err, "credentials")
			if n := c.reads.Load(); n != 1 {
				t.Errorf("reads = %d, want 1: a refused credential does not get better", n)
			}
			assertNoSecret(t, err.Error(), p)
		})
	}
}

func TestWaitParameterHonoursTheCallersContext(t *testing.T) {
	s := fakeaws.Start(t)
	c := ssmFor(t, s, s.IAM.AddUser(account, "alice"))

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		deadline := time.Now().Add(10 * time.Second)
		for s.SSM.Calls(kubeconfigParam) < 2 && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		cancel()
	}()
	_, err := WaitParameter(ctx, c, kubeconfigParam, 5*time.Millisecond, time.Minute)
	var te *WaitTimeoutError
	if !errors.Is(err, context.Canceled) || errors.As(err, &te) || sdk.IsRetryable(err) {
		t.Fatalf("error = %v, want context.Canceled (not a timeout)", err)
	}

	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = WaitParameter(ctx, c, kubeconfigParam, 5*time.Millisecond, time.Minute)
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &te) {
		t.Fatalf("error = %v, want the caller's deadline, not our timeout", err)
	}
}

// AWS's JSON protocols name an error in X-Amzn-Errortype or in the
// body's __type, either of them possibly qualified.
func TestJSONErrorReadsEveryFormOfTheCode(t *testing.T) {
	cases := []struct{ header, body, code, msg string }{
		{"", `{"__type":"ParameterNotFound","message":"no such"}`, "ParameterNotFound", "no such"},
		{"", `{"__type":"com.amazonaws.ssm#ParameterNotFound","Message":"no such"}`, "ParameterNotFound", "no such"},
		{"ThrottlingException:http://internal.amazon.com/coral/com.amazon.coral.availability/", `{"message":"slow down"}`, "ThrottlingException", "slow down"},
		{"", `not json`, "400 Bad Request", ""},
	}
	for _, c := range cases {
		resp := &http.Response{Status: "400 Bad Request", Header: http.Header{}}
		if c.header != "" {
			resp.Header.Set("X-Amzn-Errortype", c.header)
		}
		if code, msg := jsonError(resp, []byte(c.body)); code != c.code || msg != c.msg {
			t.Errorf("jsonError(%q, %s) = %q, %q; want %q, %q", c.header, c.body, code, msg, c.code, c.msg)
		}
	}
}
