package hostenv

import (
	"os/exec"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// ClientConfig is the go-plugin client configuration that launches the
// plugin binary at path, called name (kubeopera-provider-<name>), as the
// host does: the environment PluginEnv builds from environ (os.Environ()
// form) and pass, and nothing else of the caller's (SkipHostEnv); the
// KubeOpera handshake and protocol versions, gRPC only, and mutual TLS with
// identities made for this launch (sdk.ClientConfig); StartTimeout.
//
// The caller adds its logger and output sinks, then hands it to
// goplugin.NewClient and sdk.Connect. Once Connect has returned, it may
// close the read ends in Cmd.ExtraFiles (the plugin's TLS identity): the
// process has its own copies.
func ClientConfig(path, name string, environ, pass []string) *goplugin.ClientConfig {
	cmd := exec.Command(path)
	cmd.Env = PluginEnv(name, environ, pass)
	cfg := sdk.ClientConfig(cmd)
	cfg.SkipHostEnv = true
	cfg.StartTimeout = StartTimeout
	return cfg
}
