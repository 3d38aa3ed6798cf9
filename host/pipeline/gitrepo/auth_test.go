package gitrepo

import (
	"reflect"
	"strings"
	"testing"
)

func TestAuthFromSecret(t *testing.T) {
	key := []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n...\n")
	hosts := []byte("github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n")
	for _, tc := range []struct {
		name    string
		data    map[string]string
		want    Auth
		wantErr string
	}{
		{name: "username and password", data: map[string]string{"username": "bot", "password": "pw\n"},
			want: Auth{Username: "bot", Password: "pw"}},
		{name: "token as password, username defaulted at use", data: map[string]string{"password": "ghp_x"},
			want: Auth{Password: "ghp_x"}},
		{name: "bearer token", data: map[string]string{"bearerToken": "tok"},
			want: Auth{BearerToken: "tok"}},
		{name: "ssh identity with known_hosts and passphrase", data: map[string]string{"identity": string(key), "known_hosts": string(hosts), "password": "phrase"},
			want: Auth{Password: "phrase", SSHPrivateKey: key, SSHKnownHosts: hosts}},
		{name: "private CA", data: map[string]string{"username": "u", "password": "p", "ca.crt": "PEM"},
			want: Auth{Username: "u", Password: "p", CABundle: []byte("PEM")}},
		{name: "identity without known_hosts", data: map[string]string{"identity": string(key)},
			wantErr: `git credentials Secret: key "known_hosts" is missing`},
		{name: "known_hosts without identity", data: map[string]string{"known_hosts": string(hosts)},
			wantErr: `git credentials Secret: key "identity" is missing`},
		{name: "username without password", data: map[string]string{"username": "bot"},
			wantErr: `git credentials Secret: key "password" is missing: set it to the password or access token of user "bot"`},
		{name: "password and bearer token", data: map[string]string{"password": "p", "bearerToken": "t"},
			wantErr: `set either "password" or "bearerToken", not both`},
		{name: "identity and bearer token", data: map[string]string{"identity": string(key), "known_hosts": string(hosts), "bearerToken": "t"},
			wantErr: `set either "identity" (SSH) or "bearerToken" (HTTPS), not both`},
		{name: "empty", data: map[string]string{},
			wantErr: `git credentials Secret: no credentials: set "username" and "password"`},
		{name: "unrelated keys only", data: map[string]string{"token": "x"},
			wantErr: `git credentials Secret: no credentials`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := map[string][]byte{}
			for k, v := range tc.data {
				data[k] = []byte(v)
			}
			got, err := AuthFromSecret(data)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				for _, secret := range []string{"pw", "ghp_x", "phrase", "...", "AAAAC3"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("error %q contains secret material %q", err, secret)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("AuthFromSecret: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
