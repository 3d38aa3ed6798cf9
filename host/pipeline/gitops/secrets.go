package gitops

import corev1 "k8s.io/api/core/v1"

// Secrets the tree refers to and never contains. The platform creates them
// (RequiredSecrets says where) before Flux applies the tree.
const (
	// DatabaseSecret holds the password of DatabaseUser, in both
	// NamespaceData (CloudNativePG's initdb reads it) and NamespaceSystem
	// (the server and controller build their database URL from it).
	DatabaseSecret = "kubeopera-database"
	// EncryptionKeySecret holds the key that seals cloud credentials in the
	// database, under key EncryptionKeySecretKey.
	EncryptionKeySecret    = "kubeopera-encryption"
	EncryptionKeySecretKey = "key"
	// AdminTokenSecret may hold the first platform-admin token under key
	// AdminTokenSecretKey; without it the server makes one on first start.
	AdminTokenSecret    = "kubeopera-admin-token"
	AdminTokenSecretKey = "token"
	// SetupSecret holds, under SetupSecretKey, the secret the once-only
	// first-admin call must carry (the server's KUBEOPERA_SETUP_SECRET).
	SetupSecret    = "kubeopera-setup"
	SetupSecretKey = "setup-secret"
)

// SecretRequirement is a Secret the tree refers to but does not contain.
type SecretRequirement struct {
	Namespace string
	Name      string
	Type      corev1.SecretType
	// Keys are the data keys that must be set.
	Keys []string
	// Optional Secrets may be absent; pods start without them.
	Optional bool
	// Purpose says what reads it and what the value must look like.
	Purpose string
}

// RequiredSecrets lists the Secrets the platform creates for p's tree. The
// namespaces are the tree's own; creating them first is harmless, since
// Flux adopts an existing Namespace.
func (p Params) RequiredSecrets() []SecretRequirement {
	p = p.withDefaults()
	dbKeys := []string{corev1.BasicAuthUsernameKey, corev1.BasicAuthPasswordKey}
	reqs := []SecretRequirement{
		{Namespace: NamespaceData, Name: DatabaseSecret, Type: corev1.SecretTypeBasicAuth, Keys: dbKeys,
			Purpose: "CloudNativePG initdb creates role " + DatabaseUser + " with this password; username must be " +
				DatabaseUser},
		{Namespace: NamespaceSystem, Name: DatabaseSecret, Type: corev1.SecretTypeBasicAuth, Keys: dbKeys,
			Purpose: "the same password, for the server's and controller's database URL: it is put into the URL " +
				"unescaped, so generate it URL-safe (hex or base64url)"},
		{Namespace: NamespaceSystem, Name: EncryptionKeySecret, Type: corev1.SecretTypeOpaque,
			Keys:    []string{EncryptionKeySecretKey},
			Purpose: "KUBEOPERA_ENCRYPTION_KEY of the server and controller: 32 random bytes, base64 or 64 hex characters"},
		{Namespace: NamespaceSystem, Name: SetupSecret, Type: corev1.SecretTypeOpaque,
			Keys: []string{SetupSecretKey},
			Purpose: "KUBEOPERA_SETUP_SECRET of the server: the first-admin call must carry it in header " +
				"X-KubeOpera-Setup-Secret; the pipeline keeps its copy on the host"},
		{Namespace: NamespaceSystem, Name: AdminTokenSecret, Type: corev1.SecretTypeOpaque,
			Keys: []string{AdminTokenSecretKey}, Optional: true,
			Purpose: "KUBEOPERA_ADMIN_TOKEN of the server, the first platform-admin token (at least 32 characters)"},
	}
	if p.PullSecret != "" {
		reqs = append(reqs, SecretRequirement{Namespace: NamespaceSystem, Name: p.PullSecret,
			Type: corev1.SecretTypeDockerConfigJson, Keys: []string{corev1.DockerConfigJsonKey},
			Purpose: "pulls KubeOpera's images from " + p.ImageRegistry})
	}
	return reqs
}
