package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/experiments/slurm"
	"dptext/internal/datasets"
)

// cmdSlurm writes a Slurm job array that runs the shards of a config and a merge job that
// starts when every shard succeeded; with --submit it submits both with sbatch.
func cmdSlurm(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "slurm", stderr)
	shards := fs.Int("shards", 0, "number of shards, one array task each (required)")
	out := fs.String("out", "", "run `DIR` on a file system every node sees (required); the scripts go to OUT/slurm/")
	partition := fs.String("partition", "", "Slurm partition (default: the cluster's default)")
	timeLimit := fs.String("time", "", "time limit of each task, in sbatch's form (e.g. 2:00:00; default: the partition's)")
	cpus := fs.Int("cpus", 2, "CPUs per shard task, also its --jobs")
	mem := fs.String("mem", "", "memory per task in sbatch's form (e.g. 8G; default: the partition's)")
	submit := fs.Bool("submit", false, "submit the two scripts with sbatch and print the job ids")
	exe := fs.String("dptext", "", "the dptext binary `PATH` the jobs run, as the nodes see it (default: this one)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return usagef("want one CONFIG, got %d arguments", len(pos))
	case *shards < 1 || *shards > rundir.MaxShards:
		return usagef("--shards %d: want 1 to %d", *shards, rundir.MaxShards)
	case *out == "":
		return usagef("--out DIR is required: the run folder the shards share")
	case *cpus < 1 || *cpus > runconfig.MaxWorkers:
		return usagef("--cpus %d: want 1 to %d", *cpus, runconfig.MaxWorkers)
	}
	for flag, v := range map[string]string{"partition": *partition, "time": *timeLimit, "mem": *mem} {
		if !slurm.ValidValue(v) {
			return usagef("--%s %q: want letters, digits and : - _ . , only", flag, v)
		}
	}
	if !slurm.ValidTime(*timeLimit) {
		return usagef("--time %q: want sbatch's form: minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds or UNLIMITED", *timeLimit)
	}
	if !slurm.ValidMem(*mem) {
		return usagef("--mem %q: want sbatch's form: a whole number with an optional unit K, M, G or T (8G, 16000)", *mem)
	}
	cfg, err := runconfig.LoadConfig(pos[0])
	if err != nil {
		return err
	}
	if err := runconfig.CheckComponents(cfg); err != nil {
		return err
	}
	if n := cfg.Cells(); *shards > n {
		return usagef("--shards %d: the config has %d cells, so at most %d shards (a shard without a cell would run nothing)", *shards, n, n)
	}
	job := slurm.Job{Name: cfg.Name, Shards: *shards, Partition: *partition, Time: *timeLimit, CPUs: *cpus, Mem: *mem}
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
	if err := job.Validate(); err != nil {
		return usagef("%v", err)
	}
	// The shards would refuse a folder of the user's: say so now, before writing into it.
	if err := rundir.CheckOutDir(job.Out); err != nil {
		return err
	}
	scripts, err := job.Write()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s, %s and %s (edit them freely; submit.sh submits both)\n",
		filepath.Join(scripts, slurm.ShardScript), filepath.Join(scripts, slurm.MergeScript), filepath.Join(scripts, slurm.SubmitScript))
	if !*submit {
		return nil
	}
	arrayID, mergeID, err := slurm.Submit(ctx, scripts)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "shards: %s\nmerge: %s\n", arrayID, mergeID)
	return nil
}
