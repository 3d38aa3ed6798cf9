package awsprovider

import "github.com/ochestra-tech/kubeopera/sdk"

// CredentialKinds are the AWS credentials both AWS plugins accept; the
// server stores and checks them from this declaration alone. The patterns
// are internal/awscred's checks, so a paste of the wrong thing is refused
// when it is stored, not at the first provision.
func CredentialKinds() []sdk.CredentialKind {
	return []sdk.CredentialKind{
		{Name: "access_key", DisplayName: "AWS access key",
			Help: "an IAM user's access key ID and secret access key (IAM > Users > Security credentials)",
			Fields: []sdk.InputField{
				{Name: "accessKeyId", Type: sdk.String, Required: true, Label: "Access key ID", Order: 1,
					Pattern: `(AKIA|ASIA)[A-Z0-9]{16}`,
					Help:    "an AWS access key ID: 20 characters starting with AKIA or ASIA"},
				{Name: "secretAccessKey", Type: sdk.String, Required: true, Secret: true, Label: "Secret access key", Order: 2,
					Pattern: `.{40}`, Help: "an AWS secret access key: 40 characters"},
			},
			Last4Field: "accessKeyId"},
		{Name: "assume_role", DisplayName: "AWS role to assume",
			Help: "an IAM role KubeOpera assumes with a stored access key",
			Fields: []sdk.InputField{
				{Name: "roleArn", Type: sdk.String, Required: true, Label: "Role ARN", Order: 1,
					Pattern: `arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]+`,
					Help:    "an IAM role ARN: arn:aws:iam::<12-digit account>:role/<name>"},
				{Name: "externalId", Type: sdk.String, Label: "External ID", Order: 2,
					Help: "the external ID the role's trust policy requires, if any"},
				{Name: "sourceCredentialRef", Type: sdk.CredentialRef, Required: true, Label: "Assume with", Order: 3,
					CredentialKinds: []string{"access_key"},
					Help:            "the stored access key to assume the role with"},
			},
			Last4Field: "roleArn"},
	}
}
