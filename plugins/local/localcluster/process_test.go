package localcluster

import "testing"

func TestNamesMatchesTheDirectoryNotASibling(t *testing.T) {
	for _, tc := range []struct {
		cmdline string
		want    bool
	}{
		{"etcd\x00--data-dir=/c/a/etcd\x00", true},
		{"kubeopera-provider-local\x00start-cluster\x00/c/a\x00", true},
		{"kubeopera-provider-local\x00start-cluster\x00/c/a", true},
		{"etcd\x00--data-dir=/c/a-2/etcd\x00", false},
		{"etcd\x00--data-dir=/c/a-2/etcd\x00--x=/c/a/y\x00", true},
		{"sleep\x001\x00", false},
	} {
		if got := names([]byte(tc.cmdline), "/c/a"); got != tc.want {
			t.Errorf("names(%q, /c/a) = %v, want %v", tc.cmdline, got, tc.want)
		}
	}
}
