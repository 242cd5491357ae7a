// Package slurm writes (and submits) the Slurm job array that runs the shards of a config and
// the merge job that follows it.
package slurm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"dptext/internal/atomicfile"
	"dptext/internal/datasets"
)

// sbatchValue is what the values written into #SBATCH lines may hold.
var sbatchValue = regexp.MustCompile(`^[A-Za-z0-9:_.,-]*$`)

// ValidValue says whether s may be written into an #SBATCH line as a partition, time or
// memory value: letters, digits and : - _ . , only.
func ValidValue(s string) bool { return sbatchValue.MatchString(s) }

// sbatchTime is sbatch's --time: minutes, minutes:seconds, hours:minutes:seconds,
// days-hours, days-hours:minutes, days-hours:minutes:seconds, or no limit.
var sbatchTime = regexp.MustCompile(`^([0-9]+(:[0-9]+){0,2}|[0-9]+-[0-9]+(:[0-9]+){0,2}|UNLIMITED|INFINITE|unlimited|infinite)$`)

// sbatchMem is sbatch's --mem: a whole number with an optional unit K, M, G or T.
var sbatchMem = regexp.MustCompile(`^[0-9]+[KMGTkmgt]?$`)

// ValidTime says whether s ("" included: the partition's limit) is a time limit in one of
// sbatch's forms (2:00:00, 90, 1-12); "-1" or "NaN" was written into the script as it was.
func ValidTime(s string) bool { return s == "" || sbatchTime.MatchString(s) }

// ValidMem says whether s ("" included: the partition's default) is a memory size in sbatch's
// form (8G, 16000, 512M).
func ValidMem(s string) bool { return s == "" || sbatchMem.MatchString(s) }

// sbatchPath is what a path written into an #SBATCH line may hold: sbatch splits directives at
// white space, does not undo shell quoting there, and expands % in --output to job fields.
var sbatchPath = regexp.MustCompile(`^[A-Za-z0-9/_.,+=:@~-]+$`)

// Validate refuses values the scripts cannot carry: control characters (a newline would end
// a line of the script) in any path, and in the run folder, which names the log files in
// #SBATCH --output, anything but letters, digits and / _ . , + = : @ ~ -.
func (j Job) Validate() error {
	for _, v := range [][2]string{{"--out", j.Out}, {"CONFIG", j.Config}, {"--dptext", j.Exe}, {"the working folder", j.Dir}, {datasets.EnvDataDir, j.Data}} {
		if i := strings.IndexFunc(v[1], func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
			return fmt.Errorf("%s %q holds a control character (%q at byte %d), which a job script cannot carry: rename it", v[0], v[1], v[1][i], i)
		}
	}
	if !sbatchPath.MatchString(j.Out) {
		bad := strings.IndexFunc(j.Out, func(r rune) bool { return !sbatchPath.MatchString(string(r)) })
		return fmt.Errorf("--out %q: the log files of the jobs go to OUT/slurm/logs through #SBATCH --output, which cannot hold %q (at byte %d; Slurm splits at spaces and replaces %%): use a folder whose absolute path has only letters, digits and / _ . , + = : @ ~ -",
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

// Job is what the scripts need; every path is absolute.
type Job struct {
	// Name is the config's name (the jobs' names derive from it).
	Name string
	// Config is the config file; Out the run folder the shards share; Dir the working folder
	// of the jobs; Exe the dptext binary as the nodes see it; Data, when not empty, the data
	// folder exported to the jobs.
	Config, Out, Dir, Exe, Data string
	// Shards is the number of shards (array tasks); CPUs the CPUs (and --jobs) of each.
	Shards, CPUs int
	// Partition, Time and Mem are sbatch's values ("" leaves the partition's defaults).
	Partition, Time, Mem string
}

// quote makes s one word for sh.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (j Job) header(name, log string, cpus int) string {
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

func (j Job) env() string {
	s := "set -euo pipefail\ncd " + quote(j.Dir) + "\n"
	if j.Data != "" {
		s += "export " + datasets.EnvDataDir + "=" + quote(j.Data) + "\n"
	}
	return s
}

// shardScript is the job array: task i runs shard i of the config into the shared run folder.
// A task killed and resubmitted resumes: finished cells are kept.
func (j Job) shardScript() string {
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
func (j Job) mergeScript() string {
	return j.header("dptext-"+j.Name+"-merge", "merge.out", 1) +
		"# Submitted with --dependency=afterok:<array job id> (see submit.sh): runs once every\n" +
		"# shard succeeded. It fails, listing them, if any cell is missing or foreign.\n" +
		j.env() +
		fmt.Sprintf("exec %s merge %s\n", quote(j.Exe), quote(j.Out))
}

// submitScript submits the array and then the merge, depending on it.
func (j Job) submitScript() string {
	dir := quote(filepath.Join(j.Out, "slurm"))
	return "#!/bin/sh\n# Submits the shard array, then the merge job that waits for all of it to succeed.\nset -eu\n" +
		"array=$(sbatch --parsable " + dir + "/shards.sbatch)\narray=${array%%;*}\n" +
		"merge=$(sbatch --parsable --dependency=afterok:\"$array\" " + dir + "/merge.sbatch)\nmerge=${merge%%;*}\n" +
		"echo \"shards: $array\"\necho \"merge: $merge\"\n"
}

// Script names, in OUT/slurm/.
const (
	ShardScript  = "shards.sbatch"
	MergeScript  = "merge.sbatch"
	SubmitScript = "submit.sh"
)

// Write writes the shard array, the merge job and the submit script into OUT/slurm/ (and
// makes OUT/slurm/logs), returning the folder. Each is written atomically and made executable;
// a name there that is not a regular file (a named pipe, a device, a folder) is refused, not
// written through.
func (j Job) Write() (string, error) {
	scripts := filepath.Join(j.Out, "slurm")
	if err := os.MkdirAll(filepath.Join(scripts, "logs"), 0o755); err != nil {
		return "", err
	}
	files := map[string]string{ShardScript: j.shardScript(), MergeScript: j.mergeScript(), SubmitScript: j.submitScript()}
	for _, name := range []string{ShardScript, MergeScript, SubmitScript} {
		path := filepath.Join(scripts, name)
		if err := atomicfile.WriteFile(path, []byte(files[name])); err != nil {
			return "", err
		}
		if err := os.Chmod(path, 0o755); err != nil {
			return "", err
		}
	}
	return scripts, nil
}

// Submit submits the shard array of the scripts folder, then the merge job depending on it,
// and returns both job ids.
func Submit(ctx context.Context, scripts string) (arrayID, mergeID string, err error) {
	arrayID, err = sbatch(ctx, filepath.Join(scripts, ShardScript))
	if err != nil {
		return "", "", err
	}
	mergeID, err = sbatch(ctx, "--dependency=afterok:"+arrayID, filepath.Join(scripts, MergeScript))
	if err != nil {
		return "", "", fmt.Errorf("%w (the shard array %s is submitted; cancel it with scancel %s, or submit the merge yourself)", err, arrayID, arrayID)
	}
	return arrayID, mergeID, nil
}
