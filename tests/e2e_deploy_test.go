package tests

import (
	"fmt"
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

// TestDeployImageHoldsWhatALaptopHas reads deploy/Dockerfile for what a
// container runtime (none here) would build: the image copies the
// plugins the repository ships by name — never the whole build context,
// where a plugin scaffolded on the building machine would be baked in and
// approved — installs the Debian packages `make run` installs (WordNet
// among them) and the notes sentence model from its lockfile, and is
// tagged as the Deployment runs it by `make image`.
func TestDeployImageHoldsWhatALaptopHas(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "Dockerfile"))
	must(t, err)
	dockerfile := string(raw)
	if m := regexp.MustCompile(`(?m)^(COPY|ADD)\s+(--\S+\s+)*\.\s`).FindString(dockerfile); m != "" {
		t.Errorf("the Dockerfile copies the whole build context (%q): a plugin scaffolded there would be approved into the image", strings.TrimSpace(m))
	}
	out, err := exec.Command("git", "-C", repoRoot, "ls-files", "plugins").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	var shipped []string
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if parts := strings.Split(f, "/"); len(parts) > 2 && !slices.Contains(shipped, parts[1]) {
			shipped = append(shipped, parts[1])
		}
	}
	var copied []string
	for _, m := range regexp.MustCompile(`(?m)^COPY\s+plugins/([^/\s]+)\s+plugins/([^/\s]+)\s*$`).FindAllStringSubmatch(dockerfile, -1) {
		copied = append(copied, m[1])
	}
	slices.Sort(shipped)
	slices.Sort(copied)
	if !slices.Equal(copied, shipped) {
		t.Errorf("the image copies the plugins %v; the repository ships %v", copied, shipped)
	}
	if !regexp.MustCompile(`(?m)^COPY scripts/debian-packages\.txt `).MatchString(dockerfile) ||
		!strings.Contains(dockerfile, "$(sed 's/#.*//' /tmp/debian-packages.txt)") {
		t.Errorf("the runtime stage does not install scripts/debian-packages.txt, the packages `make run` installs")
	}
	if !slices.Contains(debianList(t, "debian-packages.txt"), "wordnet-base") {
		t.Errorf("scripts/debian-packages.txt lacks wordnet-base: notes search in the image would have no synonyms")
	}
	model := regexp.MustCompile(`(?s)COPY plugins/notes/model/package\.json plugins/notes/model/package-lock\.json \./\s+RUN npm ci[^\n]*\n`)
	if !model.MatchString(dockerfile) || !strings.Contains(dockerfile, "COPY --from=model /model/node_modules plugins/notes/model/node_modules") {
		t.Errorf("the image does not install the notes sentence model from plugins/notes/model/package-lock.json")
	}
	if i, j := strings.Index(dockerfile, "COPY --from=model"), strings.Index(dockerfile, "approve --all"); i < 0 || j < i {
		t.Errorf("the sentence model must be in place before the image approves its plugins")
	}

	dep, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "kubernetes", "deployment.yaml"))
	must(t, err)
	image := regexp.MustCompile(`(?m)^\s+image:\s*(\S+)`).FindSubmatch(dep)
	mk, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	must(t, err)
	tag := regexp.MustCompile(`(?m)^IMAGE\s*\?=\s*(\S+)`).FindSubmatch(mk)
	if image == nil || tag == nil || string(image[1]) != string(tag[1]) {
		t.Errorf("`make image` tags %q; the Deployment runs %q", tag, image)
	}
	if !regexp.MustCompile(`(?m)^\s+imagePullPolicy:\s*IfNotPresent`).Match(dep) {
		t.Errorf("the Deployment must not pull an image loaded into kind or minikube (imagePullPolicy: IfNotPresent)")
	}
}

// TestDeployMetricsOnlyForPrometheus: /metrics has no auth of its own, so
// deploy/kubernetes/networkpolicy.yaml must select the Deployment's pods
// and admit the metrics port only from named peers, while MCP's port stays
// open (the token guards it).
func TestDeployMetricsOnlyForPrometheus(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "kubernetes", "networkpolicy.yaml"))
	must(t, err)
	var np struct {
		Spec struct {
			PodSelector struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			} `yaml:"podSelector"`
			PolicyTypes []string `yaml:"policyTypes"`
			Ingress     []struct {
				From  []map[string]any `yaml:"from"`
				Ports []struct {
					Port any `yaml:"port"`
				} `yaml:"ports"`
			} `yaml:"ingress"`
		} `yaml:"spec"`
	}
	must(t, yaml.Unmarshal(raw, &np))
	depRaw, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "kubernetes", "deployment.yaml"))
	must(t, err)
	var dep struct {
		Spec struct {
			Template struct {
				Metadata struct {
					Labels map[string]string `yaml:"labels"`
				} `yaml:"metadata"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	must(t, yaml.Unmarshal(depRaw, &dep))
	if len(np.Spec.PodSelector.MatchLabels) == 0 {
		t.Fatal("the NetworkPolicy selects every pod in the namespace, not the host's")
	}
	for k, v := range np.Spec.PodSelector.MatchLabels {
		if dep.Spec.Template.Metadata.Labels[k] != v {
			t.Errorf("the NetworkPolicy selects %s=%s, which the Deployment's pods do not carry", k, v)
		}
	}
	if !slices.Contains(np.Spec.PolicyTypes, "Ingress") {
		t.Errorf("the NetworkPolicy does not restrict ingress")
	}
	port := func(p any) string { return strings.TrimSpace(strings.Trim(fmt.Sprint(p), `"`)) }
	metricsOpen, metricsNamed, httpOpen := false, false, false
	for _, r := range np.Spec.Ingress {
		covers := func(name, number string) bool {
			if len(r.Ports) == 0 {
				return true // a rule with no ports admits every port
			}
			for _, p := range r.Ports {
				if q := port(p.Port); q == name || q == number {
					return true
				}
			}
			return false
		}
		if covers("metrics", "9090") {
			if len(r.From) == 0 {
				metricsOpen = true
			} else {
				metricsNamed = true
			}
		}
		if covers("http", "8080") && len(r.From) == 0 {
			httpOpen = true
		}
	}
	if metricsOpen || !metricsNamed {
		t.Errorf("the metrics port must be admitted only from named peers (open: %v, named: %v)", metricsOpen, metricsNamed)
	}
	if !httpOpen {
		t.Errorf("the NetworkPolicy shuts MCP's http port to the clients")
	}
}

// debianList is the package names of one of scripts/debian-packages*.txt.
func debianList(t *testing.T, name string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "scripts", name))
	must(t, err)
	var pkgs []string
	for _, line := range strings.Split(string(raw), "\n") {
		if p := strings.TrimSpace(strings.SplitN(line, "#", 2)[0]); p != "" {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs
}
