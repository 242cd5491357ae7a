package experiments

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Run statuses in manifest.json. Only StatusComplete means results.csv is final.
const (
	StatusRunning     = "running"
	StatusComplete    = "complete"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)

// Manifest makes a run reproducible: what was run, on what, with which code, and how it ended.
// It is written when a run starts and rewritten when it ends.
type Manifest struct {
	Tool       string            `json:"tool"`
	Status     string            `json:"status"`
	Error      string            `json:"error,omitempty"`
	Name       string            `json:"name"`
	ConfigPath string            `json:"config_path"`
	ConfigHash string            `json:"config_sha256"`
	Config     string            `json:"config"`
	Seed       uint64            `json:"seed"`
	Repeats    int               `json:"repeats"`
	Jobs       int               `json:"jobs"`
	Components map[string]string `json:"component_versions"`
	Inputs     []Input           `json:"inputs"`
	GoVersion  string            `json:"go_version"`
	Platform   string            `json:"platform"`
	Modules    map[string]string `json:"modules"`
	Revision   string            `json:"vcs_revision,omitempty"`
	Started    time.Time         `json:"started"`
	Finished   *time.Time        `json:"finished,omitempty"`
	Cells      int               `json:"cells"`
	CellsDone  int               `json:"cells_done"`
	Rows       int               `json:"rows,omitempty"`
	// PhaseSeconds is the wall time spent in each phase (mechanisms, fit, predict, utility,
	// building mechanisms) summed over workers, in this invocation (not in resumed cells).
	PhaseSeconds map[string]float64 `json:"phase_seconds,omitempty"`
}

// Input is a file or folder a run read, with its content hash.
type Input struct {
	Role   string `json:"role"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

func newManifest(cfg *Config, jobs int) *Manifest {
	m := &Manifest{Tool: "dptext", Status: StatusRunning, Name: cfg.Name, ConfigPath: filepath.ToSlash(cfg.Path),
		ConfigHash: cfg.Hash, Config: cfg.Text, Seed: cfg.Seed, Repeats: cfg.Repeats, Jobs: jobs,
		GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		Modules: map[string]string{}, Started: time.Now().UTC()}
	m.Components = componentVersions(cfg)
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			m.Modules[d.Path] = d.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				m.Revision = s.Value
			}
		}
	}
	if m.Revision == "" {
		if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
			m.Revision = strings.TrimSpace(string(out))
		}
	}
	return m
}

func (m *Manifest) write(dir string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "manifest.json"), append(data, '\n'))
}

// ReadManifest reads a run directory's manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	m := &Manifest{}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, err
	}
	return m, nil
}

// componentVersions maps each registry entry a config uses ("mechanism/emd", "scorer/sr-nn") to
// its version. Finished cells are reused only while these are unchanged.
func componentVersions(cfg *Config) map[string]string {
	v := map[string]string{}
	for _, c := range cfg.Mechanisms {
		v["mechanism/"+c.Name] = Mechanisms[c.Name].Version
	}
	for _, c := range cfg.Scorers {
		v["scorer/"+c.Name] = Scorers[c.Name].Version
	}
	return v
}
