package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// deployment is the part of deploy/kubernetes/deployment.yaml the test
// reads.
type deployment struct {
	Spec struct {
		Template struct {
			Spec struct {
				SecurityContext struct {
					RunAsNonRoot bool `yaml:"runAsNonRoot"`
				} `yaml:"securityContext"`
				Containers []struct {
					Args  []string `yaml:"args"`
					Ports []struct {
						Name          string `yaml:"name"`
						ContainerPort int    `yaml:"containerPort"`
					} `yaml:"ports"`
					Env []struct {
						Name      string `yaml:"name"`
						ValueFrom struct {
							SecretKeyRef struct{ Name, Key string } `yaml:"secretKeyRef"`
						} `yaml:"valueFrom"`
					} `yaml:"env"`
					ReadinessProbe struct {
						HTTPGet struct {
							Path string `yaml:"path"`
							Port string `yaml:"port"`
						} `yaml:"httpGet"`
					} `yaml:"readinessProbe"`
					LivenessProbe struct {
						HTTPGet struct {
							Path string `yaml:"path"`
							Port string `yaml:"port"`
						} `yaml:"httpGet"`
					} `yaml:"livenessProbe"`
					VolumeMounts []struct {
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
					SecurityContext struct {
						ReadOnlyRootFilesystem bool `yaml:"readOnlyRootFilesystem"`
					} `yaml:"securityContext"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestDeployManifestsMatchTheHost: what kubeconform cannot see — the
// Deployment asks the host for flags it has, probes the endpoints it
// serves on the port it listens on, takes the token from the Secret the
// manifests define, runs non-root on a read-only root, and mounts a volume
// at every path the image declares writable.
func TestDeployManifestsMatchTheHost(t *testing.T) {
	dir := filepath.Join(repoRoot, "deploy")
	raw, err := os.ReadFile(filepath.Join(dir, "kubernetes", "deployment.yaml"))
	must(t, err)
	var d deployment
	must(t, yaml.Unmarshal(raw, &d))
	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(d.Spec.Template.Spec.Containers))
	}
	c := d.Spec.Template.Spec.Containers[0]

	help, err := exec.Command(hostBin, "serve", "--help").CombinedOutput()
	must(t, err)
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--") && !strings.Contains(string(help), "  "+a+" ") {
			t.Errorf("the Deployment passes %s, which `host serve` does not take", a)
		}
	}
	port := 0
	for _, p := range c.Ports {
		if p.Name == "http" {
			port = p.ContainerPort
		}
	}
	if i := slices.Index(c.Args, "--http"); i < 0 || i+1 >= len(c.Args) || !strings.HasSuffix(c.Args[i+1], ":"+strconv.Itoa(port)) {
		t.Errorf("the container port http (%d) is not where --http listens: args %v", port, c.Args)
	}
	if p := c.ReadinessProbe.HTTPGet; p.Path != "/readyz" || p.Port != "http" {
		t.Errorf("readiness probe: %+v, want /readyz on http", p)
	}
	if p := c.LivenessProbe.HTTPGet; p.Path != "/healthz" || p.Port != "http" {
		t.Errorf("liveness probe: %+v, want /healthz on http", p)
	}

	secret, err := os.ReadFile(filepath.Join(dir, "kubernetes", "secret.yaml"))
	must(t, err)
	var s struct {
		Metadata   struct{ Name string }
		StringData map[string]string `yaml:"stringData"`
	}
	must(t, yaml.Unmarshal(secret, &s))
	found := false
	for _, e := range c.Env {
		if e.Name == "HOST_HTTP_TOKEN" {
			ref := e.ValueFrom.SecretKeyRef
			_, hasKey := s.StringData[ref.Key]
			found = ref.Name == s.Metadata.Name && hasKey
		}
	}
	if !found {
		t.Errorf("HOST_HTTP_TOKEN does not come from the Secret %s in secret.yaml", s.Metadata.Name)
	}

	if !d.Spec.Template.Spec.SecurityContext.RunAsNonRoot || !c.SecurityContext.ReadOnlyRootFilesystem {
		t.Errorf("the pod must run non-root on a read-only root")
	}
	dockerfile, err := os.ReadFile(filepath.Join(dir, "Dockerfile"))
	must(t, err)
	if m := regexp.MustCompile(`(?m)^USER (\d+)`).FindSubmatch(dockerfile); m == nil || string(m[1]) == "0" {
		t.Errorf("the image must set a non-root USER")
	}
	vol := regexp.MustCompile(`(?m)^VOLUME \[(.*)\]`).FindSubmatch(dockerfile)
	if vol == nil {
		t.Fatal("the Dockerfile declares no VOLUME")
	}
	var mounts []string
	for _, m := range c.VolumeMounts {
		mounts = append(mounts, m.MountPath)
	}
	for _, v := range strings.Split(string(vol[1]), ",") {
		if v = strings.Trim(strings.TrimSpace(v), `"`); !slices.Contains(mounts, v) {
			t.Errorf("the image's writable %s has no volume in the Deployment (the root is read-only)", v)
		}
	}
}
