package awscred

import (
	"strings"
	"testing"
)

func TestShapes(t *testing.T) {
	cases := []struct {
		check func(string) bool
		in    string
		ok    bool
	}{
		{AccessKeyID, "AKIAIOSFODNN7EXAMPLE", true},
		{AccessKeyID, "ASIAIOSFODNN7EXAMPLE", true},
		{AccessKeyID, "akiaiosfodnn7example", false},
		{AccessKeyID, "AKIAIOSFODNN7EXAMPL", false},
		{SecretAccessKey, strings.Repeat("x", 40), true},
		{SecretAccessKey, strings.Repeat("x", 39), false},
		{RoleARN, "arn:aws:iam::123456789012:role/kubeopera", true},
		{RoleARN, "arn:aws-us-gov:iam::123456789012:role/path/to/r", true},
		{RoleARN, "arn:aws:iam::12345:role/x", false},
		{RoleARN, "arn:aws:iam::123456789012:user/x", false},
	}
	for _, tc := range cases {
		if got := tc.check(tc.in); got != tc.ok {
			t.Errorf("check(%q) = %v, want %v", tc.in, got, tc.ok)
		}
	}
}
