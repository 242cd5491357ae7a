// Package rundir keeps the files of a run folder: the manifest and its heartbeat, the lock,
// the checksummed cell files, the fingerprint of what the cells were computed from, the shard
// a process computes and its shard files, and the clean-up that never touches a user's files.
package rundir

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/internal/filehash"
)

// Run statuses in manifest.json. Only StatusComplete means results.csv is final.
const (
	StatusRunning     = "running"
	StatusComplete    = "complete"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
	// StatusShardComplete ends a shard's manifest (shards/K-of-N.json) when all its cells
	// are finished; the run's results come from dptext merge.
	StatusShardComplete = "shard complete"
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
	// Behaviour is each component's behaviour fingerprint (package experiments/fingerprint:
	// the SHA-256 of its outputs on a fixed canary with fixed seeds), or why it has none;
	// cells, cached releases and fits are reused only under equal fingerprints.
	Behaviour map[string]string `json:"behaviour_fingerprints,omitempty"`
	Inputs    []Input           `json:"inputs"`
	// Corpus describes the corpus read (counts, merged identities, what was skipped); the
	// captions of `dptext report` are built from it.
	Corpus *CorpusRead `json:"corpus_read,omitempty"`
	// WholePoolSets names the sets whose evaluation authors are the same in every repeat
	// although resample = "authors": the set takes every eligible author, so the intervals do
	// not cover the draw of authors (the caption says so).
	WholePoolSets []string          `json:"whole_pool_sets,omitempty"`
	GoVersion     string            `json:"go_version"`
	Platform      string            `json:"platform"`
	Modules       map[string]string `json:"modules"`
	Revision      string            `json:"vcs_revision,omitempty"`
	Started       time.Time         `json:"started"`
	Finished      *time.Time        `json:"finished,omitempty"`
	// PID and Host name the process that runs (or ran) the run; Heartbeat is refreshed every
	// HeartbeatInterval while it runs, so that a run that died without saying so (killed, out
	// of memory) is recognised: see Liveness.
	PID       int        `json:"pid,omitempty"`
	Host      string     `json:"host,omitempty"`
	Heartbeat *time.Time `json:"heartbeat,omitempty"`
	Cells     int        `json:"cells"`
	CellsDone int        `json:"cells_done"`
	Rows      int        `json:"rows,omitempty"`
	// Shard is the part of the cells a shard run computes (absent for a whole run or a merge).
	Shard *Shard `json:"shard,omitempty"`
	// PhaseSeconds is the wall time spent in each phase (mechanisms, fit, predict, utility,
	// building mechanisms) summed over workers, in this invocation (not in resumed cells).
	PhaseSeconds map[string]float64 `json:"phase_seconds,omitempty"`
	// CellTimes is, for every cell whose file records it (cell path → time), the wall time
	// of each of its phases and the words its mechanism released, including cells resumed
	// from an earlier invocation.
	CellTimes map[string]*CellTime `json:"cell_times,omitempty"`
	// Outputs lists, relative to the run folder, every output file the complete run (or a
	// later `dptext report`) wrote: the fixed names (FixedOutputs), its plots and tf/*.tsv. The
	// next run into the folder removes the fixed names and exactly the listed plots and tf
	// files (RemoveRunOutputs); any other file stays.
	Outputs []string `json:"outputs,omitempty"`
}

// Input is a file or folder a run read, with its content hash.
type Input struct {
	Role   string `json:"role"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
	// Read is the path as read (Path resolved against the config's folder), for the builders
	// that compare the bytes they parse with SHA256 (registry.Env.InputSHA256); not written.
	Read string `json:"-"`
}

func NewManifest(cfg *runconfig.Config, jobs int) *Manifest {
	m := &Manifest{Tool: "dptext", Status: StatusRunning, Name: cfg.Name, ConfigPath: filepath.ToSlash(cfg.Path),
		ConfigHash: cfg.Hash, Config: cfg.Text, Seed: uint64(cfg.Seed), Repeats: cfg.Repeats, Jobs: jobs,
		GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		Modules: map[string]string{}, Started: time.Now().UTC(), PID: os.Getpid(), Host: Hostname()}
	m.Heartbeat = &m.Started
	m.Components = ComponentVersions(cfg)
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

func (m *Manifest) Write(dir string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	name := "manifest.json"
	if m.Shard != nil {
		name = shardManifestName(*m.Shard)
		if err := os.MkdirAll(filepath.Join(dir, "shards"), 0o755); err != nil {
			return err
		}
	}
	return WriteFileAtomic(filepath.Join(dir, name), append(data, '\n'))
}

// HeartbeatInterval is how often a running run refreshes the heartbeat in its manifest.
const HeartbeatInterval = 10 * time.Second

// StaleAfter is how old a heartbeat of another host's run may be before the run counts as dead.
const StaleAfter = 6 * HeartbeatInterval

// Liveness says whether a run whose manifest says "running" is really running. It returns
// alive = true for runs in any other status; otherwise a run of this host is alive while its
// process exists, and a run of another host while its heartbeat is within staleAfter of this
// host's clock (either side: the hosts' clocks may differ). It is a first verdict on another
// host's run, for messages: before a lock is taken over, watchHeartbeat confirms it. why
// describes the verdict for a dead run.
func (m *Manifest) Liveness() (alive bool, why string) {
	if m.Status != StatusRunning {
		return true, ""
	}
	beat := "never"
	var age time.Duration
	if m.Heartbeat != nil {
		age = time.Since(*m.Heartbeat).Round(time.Second)
		beat = age.String() + " ago"
		if age < 0 {
			beat = (-age).String() + " ahead of this host's clock"
		}
	}
	if m.PID > 0 && m.Host == Hostname() {
		if processAlive(m.PID) {
			return true, ""
		}
		return false, fmt.Sprintf("its process (pid %d on %s) is gone; last heartbeat %s", m.PID, m.Host, beat)
	}
	// A heartbeat up to staleAfter in the future is a live run whose clock runs ahead of this
	// one; taking its lock over is left to watchHeartbeat, which compares nothing across clocks.
	if m.Heartbeat != nil && age >= -StaleAfter && age <= StaleAfter {
		return true, ""
	}
	who := "an unrecorded process"
	if m.PID > 0 {
		who = fmt.Sprintf("pid %d on host %s", m.PID, m.Host)
	}
	return false, fmt.Sprintf("no heartbeat from %s for %s (last %s)", who, StaleAfter, beat)
}

// StatusLine describes how a run ended, or that it is still running, in one line; a run that
// died while its manifest says "running" is reported as dead.
func (m *Manifest) StatusLine() string {
	switch alive, why := m.Liveness(); {
	case !alive:
		return "dead (the manifest says running, but " + why + "): run the same command again to resume"
	case m.Status == StatusRunning:
		return fmt.Sprintf("running (pid %d on %s, %d of %d cells done)", m.PID, m.Host, m.CellsDone, m.Cells)
	case m.Error != "":
		return m.Status + ": " + m.Error
	}
	return m.Status
}

// NewLiveManifest keeps m, the manifest of the run folder dir.
func NewLiveManifest(dir string, m *Manifest) *LiveManifest { return &LiveManifest{m: m, dir: dir} }

// LiveManifest serialises updates of a run's manifest from its workers and its heartbeat.
type LiveManifest struct {
	mu  sync.Mutex
	m   *Manifest
	dir string
}

// Update applies f and rewrites manifest.json.
func (l *LiveManifest) Update(f func(m *Manifest)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	f(l.m)
	now := time.Now().UTC()
	l.m.Heartbeat = &now
	return l.m.Write(l.dir)
}

// Beat refreshes the heartbeat every HeartbeatInterval until stop is closed.
func (l *LiveManifest) Beat(stop <-chan struct{}) {
	t := time.NewTicker(HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			_ = l.Update(func(*Manifest) {})
		}
	}
}

// ReadManifest reads a run directory's manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	data, err := filehash.ReadRegular(filepath.Join(dir, "manifest.json"), filehash.MaxStateBytes, "a run manifest")
	if err != nil {
		return nil, err
	}
	m := &Manifest{}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, err
	}
	return m, nil
}

// ComponentVersions maps each registry entry a config uses ("mechanism/emd", "scorer/sr-nn") to
// its version. Finished cells are reused only while these are unchanged.
func ComponentVersions(cfg *runconfig.Config) map[string]string {
	v := map[string]string{}
	for _, c := range cfg.Mechanisms {
		v["mechanism/"+c.Name] = registry.Mechanisms[c.Name].Version
	}
	for _, c := range cfg.Scorers {
		v["scorer/"+c.Name] = registry.Scorers[c.Name].Version
	}
	return v
}
