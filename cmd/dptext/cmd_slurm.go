package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"dptext/datasets"
	"dptext/experiments"
)

// cmdSlurm writes a Slurm job array that runs the shards of a config and a merge job that
// starts when every shard succeeded; with --submit it submits both with sbatch.
func cmdSlurm(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("slurm", stderr)
	shards := fs.Int("shards", 0, "number of shards, one array task each (required)")
	out := fs.String("out", "", "run folder on a file system every node sees (required); the scripts go to OUT/slurm/")
	partition := fs.String("partition", "", "Slurm partition (default: the cluster's default)")
	timeLimit := fs.String("time", "", "time limit of each task, in sbatch's form (e.g. 2:00:00; default: the partition's)")
	cpus := fs.Int("cpus", 2, "CPUs per shard task, also its --jobs")
	mem := fs.String("mem", "", "memory per task in sbatch's form (e.g. 8G; default: the partition's)")
	submit := fs.Bool("submit", false, "submit the two scripts with sbatch and print the job ids")
	exe := fs.String("dptext", "", "the dptext binary the jobs run, as the nodes see it (default: this one)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return usagef("want one CONFIG, got %d arguments", len(pos))
	case *shards < 1:
		return usagef("--shards %d: want at least 1", *shards)
	case *out == "":
		return usagef("--out DIR is required: the run folder the shards share")
	case *cpus < 1:
		return usagef("--cpus %d: want at least 1", *cpus)
	}
	for flag, v := range map[string]string{"partition": *partition, "time": *timeLimit, "mem": *mem} {
		if !sbatchValue.MatchString(v) {
			return usagef("--%s %q: want letters, digits and : - _ . , only", flag, v)
		}
	}
	cfg, err := experiments.LoadConfig(pos[0])
	if err != nil {
		return err
	}
	if err := experiments.CheckComponents(cfg); err != nil {
		return err
	}
	job := slurmJob{Name: cfg.Name, Shards: *shards, Partition: *partition, Time: *timeLimit, CPUs: *cpus, Mem: *mem}
	if job.Dir, err = os.Getwd(); err != nil {
		return err
	}
	if job.Config, err = filepath.Abs(pos[0]); err != nil {
		return err
	}
	if job.Out, err = filepath.Abs(*out); err != nil {
		return err
	}
	if job.Exe = *exe; job.Exe == "" {
		if job.Exe, err = os.Executable(); err != nil {
			return err
		}
		if strings.Contains(job.Exe, "go-build") {
			return fmt.Errorf("dptext runs from go run's temporary build (%s), which the jobs would not find: build it (go build -o dptext ./cmd/dptext) and run that, or pass --dptext PATH", job.Exe)
		}
	}
	if d := os.Getenv(datasets.EnvDataDir); d != "" {
		if job.Data, err = filepath.Abs(d); err != nil {
			return err
		}
	}
	if err := job.validate(); err != nil {
		return err
	}
	// The shards would refuse a folder of the user's: say so now, before writing into it.
	if err := experiments.CheckOutDir(job.Out); err != nil {
		return err
	}
	scripts := filepath.Join(job.Out, "slurm")
	if err := os.MkdirAll(filepath.Join(scripts, "logs"), 0o755); err != nil {
		return err
	}
	files := map[string]string{"shards.sbatch": job.shardScript(), "merge.sbatch": job.mergeScript(), "submit.sh": job.submitScript()}
	for _, name := range []string{"shards.sbatch", "merge.sbatch", "submit.sh"} {
		if err := os.WriteFile(filepath.Join(scripts, name), []byte(files[name]), 0o755); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "wrote %s, %s and %s (edit them freely; submit.sh submits both)\n",
		filepath.Join(scripts, "shards.sbatch"), filepath.Join(scripts, "merge.sbatch"), filepath.Join(scripts, "submit.sh"))
	if !*submit {
		return nil
	}
	arrayID, err := sbatch(ctx, filepath.Join(scripts, "shards.sbatch"))
	if err != nil {
		return err
	}
	mergeID, err := sbatch(ctx, "--dependency=afterok:"+arrayID, filepath.Join(scripts, "merge.sbatch"))
	if err != nil {
		return fmt.Errorf("%w (the shard array %s is submitted; cancel it with scancel %s, or submit the merge yourself)", err, arrayID, arrayID)
	}
	fmt.Fprintf(stdout, "shards: %s\nmerge: %s\n", arrayID, mergeID)
	return nil
}

// sbatchValue is what the values written into #SBATCH lines may hold.
var sbatchValue = regexp.MustCompile(`^[A-Za-z0-9:_.,-]*$`)

// sbatchPath is what a path written into an #SBATCH line may hold: sbatch splits directives at
// white space, does not undo shell quoting there, and expands % in --output to job fields.
var sbatchPath = regexp.MustCompile(`^[A-Za-z0-9/_.,+=:@~-]+$`)

// validate refuses values the scripts cannot carry: control characters (a newline would end
// a line of the script) in any path, and in the run folder, which names the log files in
// #SBATCH --output, anything but letters, digits and / _ . , + = : @ ~ -.
func (j slurmJob) validate() error {
	for _, v := range [][2]string{{"--out", j.Out}, {"CONFIG", j.Config}, {"--dptext", j.Exe}, {"the working folder", j.Dir}, {datasets.EnvDataDir, j.Data}} {
		if i := strings.IndexFunc(v[1], func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
			return usagef("%s %q holds a control character (%q at byte %d), which a job script cannot carry: rename it", v[0], v[1], v[1][i], i)
		}
	}
	if !sbatchPath.MatchString(j.Out) {
		bad := strings.IndexFunc(j.Out, func(r rune) bool { return !sbatchPath.MatchString(string(r)) })
		return usagef("--out %q: the log files of the jobs go to OUT/slurm/logs through #SBATCH --output, which cannot hold %q (at byte %d; Slurm splits at spaces and replaces %%): use a folder whose absolute path has only letters, digits and / _ . , + = : @ ~ -",
			j.Out, j.Out[bad:bad+1], bad)
	}
	return nil
}

// jobName is s with every character sbatch's --job-name cannot take in a directive replaced
// by '_'.
func jobName(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && sbatchValue.MatchString(string(r)) {
			return r
		}
		return '_'
	}, s)
}

// sbatch submits with --parsable and returns the job id ("id" or "id;cluster" → id).
func sbatch(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "sbatch", append([]string{"--parsable"}, args...)...)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("sbatch %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if id == "" || strings.ContainsAny(id, " \n") {
		return "", fmt.Errorf("sbatch %s: unexpected output %q (want a job id)", strings.Join(args, " "), out)
	}
	return id, nil
}

// slurmJob is what the scripts need; every path is absolute.
type slurmJob struct {
	Name, Config, Out, Dir, Exe, Data string
	Shards, CPUs                      int
	Partition, Time, Mem              string
}

// quote makes s one word for sh.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (j slurmJob) header(name, log string, cpus int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n#SBATCH --job-name=%s\n", jobName(name))
	fmt.Fprintf(&b, "#SBATCH --output=%s\n#SBATCH --cpus-per-task=%d\n#SBATCH --ntasks=1\n", filepath.Join(j.Out, "slurm", "logs", log), cpus)
	for _, kv := range [][2]string{{"partition", j.Partition}, {"time", j.Time}, {"mem", j.Mem}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, "#SBATCH --%s=%s\n", kv[0], kv[1])
		}
	}
	return b.String()
}

func (j slurmJob) env() string {
	s := "set -euo pipefail\ncd " + quote(j.Dir) + "\n"
	if j.Data != "" {
		s += "export DPTEXT_DATA=" + quote(j.Data) + "\n"
	}
	return s
}

// shardScript is the job array: task i runs shard i of the config into the shared run folder.
// A task killed and resubmitted resumes: finished cells are kept.
func (j slurmJob) shardScript() string {
	return j.header("dptext-"+j.Name, "shard-%a.out", j.CPUs) +
		fmt.Sprintf("#SBATCH --array=0-%d\n", j.Shards-1) +
		fmt.Sprintf("# One task per shard: task K runs shard K of %d. The shard count is written here, not\n", j.Shards) +
		"# taken from the array, so that `sbatch --array=K shards.sbatch` reruns shard K alone\n" +
		"# (it resumes: finished cells are kept).\n" +
		j.env() +
		fmt.Sprintf("exec %s run %s --out %s --shard \"${SLURM_ARRAY_TASK_ID:?run as a job array: sbatch --array=K}/%d\" --jobs \"${SLURM_CPUS_PER_TASK:-%d}\"\n",
			quote(j.Exe), quote(j.Config), quote(j.Out), j.Shards, j.CPUs)
}

// mergeScript checks every cell and writes results.csv, tables and plots.
func (j slurmJob) mergeScript() string {
	return j.header("dptext-"+j.Name+"-merge", "merge.out", 1) +
		"# Submitted with --dependency=afterok:<array job id> (see submit.sh): runs once every\n" +
		"# shard succeeded. It fails, listing them, if any cell is missing or foreign.\n" +
		j.env() +
		fmt.Sprintf("exec %s merge %s\n", quote(j.Exe), quote(j.Out))
}

// submitScript submits the array and then the merge, depending on it.
func (j slurmJob) submitScript() string {
	dir := quote(filepath.Join(j.Out, "slurm"))
	return "#!/bin/sh\n# Submits the shard array, then the merge job that waits for all of it to succeed.\nset -eu\n" +
		"array=$(sbatch --parsable " + dir + "/shards.sbatch)\narray=${array%%;*}\n" +
		"merge=$(sbatch --parsable --dependency=afterok:\"$array\" " + dir + "/merge.sbatch)\nmerge=${merge%%;*}\n" +
		"echo \"shards: $array\"\necho \"merge: $merge\"\n"
}
