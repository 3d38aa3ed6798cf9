// Package awscred checks the shape of AWS credentials, for the server
// (when a credential is stored) and the AWS provider plugins (in Validate)
// alike. Only AWS can say whether a credential works; these checks catch
// pastes of the wrong thing. Messages never repeat the value: it is secret.
package awscred

import "regexp"

var (
	accessKeyIDRE = regexp.MustCompile(`^(AKIA|ASIA)[A-Z0-9]{16}$`)
	roleARNRE     = regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]+$`)
)

// Messages for each field that fails its check.
const (
	BadAccessKeyID     = "is not an AWS access key ID (20 characters starting with AKIA or ASIA)"
	BadSecretAccessKey = "is not an AWS secret access key (40 characters)"
	BadRoleARN         = "is not an IAM role ARN (arn:aws:iam::<12-digit account>:role/<name>)"
)

// AccessKeyID reports whether s looks like an access key ID.
func AccessKeyID(s string) bool { return accessKeyIDRE.MatchString(s) }

// SecretAccessKey reports whether s looks like a secret access key.
func SecretAccessKey(s string) bool { return len(s) == 40 }

// RoleARN reports whether s looks like an IAM role ARN.
func RoleARN(s string) bool { return roleARNRE.MatchString(s) }
