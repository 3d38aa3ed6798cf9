package bootstrap

import (
	"errors"
	"testing"
)

func TestParseMarker(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        Marker
		err         error
	}{
		{name: "member 0 after init", value: "ready", want: Marker{State: Ready}},
		{name: "a member or worker that joined", value: "joined", want: Marker{State: Joined}},
		{name: "a failure names its step and reason", value: "failed: kubeadm-join: a command exited with status 1",
			want: Marker{State: Failed, Step: "kubeadm-join", Reason: "a command exited with status 1"}},
		{name: "a reason may contain colons", value: "failed: wait-for-member-1: member 1 reported a failure (failed: kubeadm-join: x)",
			want: Marker{State: Failed, Step: "wait-for-member-1", Reason: "member 1 reported a failure (failed: kubeadm-join: x)"}},
		{name: "anything else is not a marker", value: "pending", err: ErrBadMarker},
		{name: "a kubeconfig is not a marker", value: "apiVersion: v1", err: ErrBadMarker},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseMarker(tc.value)
			if !errors.Is(err, tc.err) || got != tc.want {
				t.Errorf("ParseMarker(%q) = %+v, %v; want %+v, %v", tc.value, got, err, tc.want, tc.err)
			}
		})
	}
}
