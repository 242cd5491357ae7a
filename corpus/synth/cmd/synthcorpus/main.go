// Command synthcorpus writes the synthetic corpora of package synth: `synthcorpus pan2019 DIR`,
// `synthcorpus pan2018 DIR`, `synthcorpus crosstopic DIR` or `synthcorpus columns DIR`.
package main

import (
	"fmt"
	"os"

	"dptext/corpus/synth"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: synthcorpus pan2019|pan2018|crosstopic|columns DIR")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "pan2019":
		err = synth.WritePAN(os.Args[2], synth.PAN2019())
	case "pan2018":
		err = synth.WritePAN(os.Args[2], synth.PAN2018())
	case "crosstopic":
		err = synth.WriteDir(os.Args[2], synth.CrossTopic())
	case "columns":
		err = synth.WriteDir(os.Args[2], synth.Columns())
	default:
		fmt.Fprintf(os.Stderr, "synthcorpus: unknown kind %q: want pan2019, pan2018, crosstopic or columns\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "synthcorpus:", err)
		os.Exit(1)
	}
}
