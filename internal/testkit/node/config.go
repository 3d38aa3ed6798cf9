package node

import (
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// PauseImage is the pod sandbox image: hack/build-node.sh builds it (no
// registry is reachable for registry.k8s.io/pause).
const PauseImage = "localhost/kubeopera/pause:1"

// paths are the node's files, all under one directory.
type paths struct {
	dir                                    string
	containerdConfig, containerdRoot       string
	containerdState, containerdSocket      string
	cniConf, cniBin, cniData               string
	kubeletConfig, kubeletRoot, kubeletPKI string
	podLogs, staticPods                    string
}

func newPaths(dir, cniBin string) paths {
	return paths{
		dir:              dir,
		containerdConfig: dir + "/containerd.toml", containerdRoot: dir + "/containerd/root",
		containerdState: dir + "/containerd/state", containerdSocket: dir + "/containerd.sock",
		cniConf: dir + "/cni/net.d", cniBin: cniBin, cniData: dir + "/cni/ipam",
		kubeletConfig: dir + "/kubelet.yaml", kubeletRoot: dir + "/kubelet", kubeletPKI: dir + "/kubelet/pki",
		podLogs: dir + "/pod-logs", staticPods: dir + "/manifests",
	}
}

// containerdConfig is containerd 2's configuration (version 3). On this
// machine's cgroup v1 without systemd the runc shim uses cgroupfs, and
// restrict_oom_score_adj keeps runc from raising a container's
// oom_score_adj, which root without CAP_SYS_RESOURCE may not do (runc
// fails with "nsexec: failed to update /proc/self/oom_score_adj:
// Permission denied" otherwise).
func containerdConfig(p paths, runc string) string {
	return fmt.Sprintf(`version = 3
root = %q
state = %q

[grpc]
  address = %q

[ttrpc]
  address = %q

[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'overlayfs'

[plugins.'io.containerd.cri.v1.images'.pinned_images]
  sandbox = %q

[plugins.'io.containerd.cri.v1.runtime']
  restrict_oom_score_adj = true

[plugins.'io.containerd.cri.v1.runtime'.containerd]
  default_runtime_name = 'runc'

[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
  runtime_type = 'io.containerd.runc.v2'

[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
  BinaryName = %q
  SystemdCgroup = false

[plugins.'io.containerd.cri.v1.runtime'.cni]
  bin_dirs = [%q]
  conf_dir = %q
`, p.containerdRoot, p.containerdState, p.containerdSocket, p.containerdSocket+".ttrpc",
		PauseImage, runc, p.cniBin, p.cniConf)
}

// cniConfig is the pod network: a bridge in the node's namespace, with the
// node's pod CIDR; its gateway is the pods' only route.
func cniConfig(n network, p paths) ([]byte, error) {
	return json.MarshalIndent(map[string]any{
		"cniVersion": "1.0.0",
		"name":       "kubeopera-node",
		"plugins": []any{
			map[string]any{
				"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
				"ipam": map[string]any{
					"type": "host-local", "dataDir": p.cniData,
					"ranges": [][]map[string]string{{{"subnet": n.podCIDR}}},
					"routes": []map[string]string{{"dst": "0.0.0.0/0"}},
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}, "", "  ")
}

// kubeletConfig is the kubelet's configuration, written from upstream's
// own types so no key can be misspelt. cgroup v1 is deprecated since 1.35
// and refused unless failCgroupV1 is false; this machine's PID 1 is not
// systemd, hence cgroupfs. The kubelet API takes anonymous requests: the
// sandbox's API server, which makes no client certificate, reads logs
// through it, and it listens on the node's own namespace only.
func kubeletConfig(n network, p paths) ([]byte, error) {
	c := kubeletv1beta1.KubeletConfiguration{
		TypeMeta:                 metav1.TypeMeta{APIVersion: "kubelet.config.k8s.io/v1beta1", Kind: "KubeletConfiguration"},
		FailCgroupV1:             ptr.To(false),
		CgroupDriver:             "cgroupfs",
		ContainerRuntimeEndpoint: "unix://" + p.containerdSocket,
		Address:                  n.nodeIP,
		ReadOnlyPort:             0,
		Authentication: kubeletv1beta1.KubeletAuthentication{
			Anonymous: kubeletv1beta1.KubeletAnonymousAuthentication{Enabled: ptr.To(true)},
			Webhook:   kubeletv1beta1.KubeletWebhookAuthentication{Enabled: ptr.To(false)},
		},
		Authorization: kubeletv1beta1.KubeletAuthorization{Mode: kubeletv1beta1.KubeletAuthorizationModeAlwaysAllow},
		FailSwapOn:    ptr.To(false),
		PodCIDR:       n.podCIDR,
		// Not /var/log/pods: the node's files stay in its directory.
		PodLogsDir:    p.podLogs,
		StaticPodPath: p.staticPods,
		ClusterDomain: "cluster.local",
		// No resolv.conf from this machine: its name server is outside the
		// node's reach, and pods here resolve nothing.
		ResolverConfig: ptr.To(""),
		// The disk is shared with other work: never evict for it.
		EvictionHard:                map[string]string{"memory.available": "100Mi"},
		ImageGCHighThresholdPercent: ptr.To[int32](100),
		SerializeImagePulls:         ptr.To(false),
		NodeStatusUpdateFrequency:   metav1.Duration{Duration: 2 * time.Second},
		SyncFrequency:               metav1.Duration{Duration: 5 * time.Second},
	}
	return yaml.Marshal(c)
}
