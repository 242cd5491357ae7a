// Package resources estimates whether the memory a value implies (a config's option, a model
// file, a command-line size) fits the machine, so that dptext refuses it with the estimate
// instead of dying in an allocation.
package resources

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// BytesPerWord is what one word of a document held in memory costs at least: its string
// header (16 bytes) and about 8 bytes of text.
const BytesPerWord = 24

// fallbackMemory is the budget where the machine's memory cannot be read (16 GiB).

const fallbackMemory = 16 << 30

var memory = sync.OnceValue(func() float64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return fallbackMemory
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err == nil && kb > 0 {
				return kb * 1024
			}
		}
	}
	return fallbackMemory
})

// Memory is the memory budget in bytes: the machine's physical memory (MemTotal of
// /proc/meminfo), or 16 GiB where that cannot be read.
func Memory() float64 { return memory() }

// Fits returns nil when an estimate of bytes fits into Memory(), else an error that starts
// with what (e.g. "dim = 1000000000"), gives the estimate and how it was made (how, e.g.
// "4 bytes × dim × 2,000 rows"), and the budget.
func Fits(what string, bytes float64, how string) error {
	if bytes <= Memory() {
		return nil
	}
	return fmt.Errorf("%s: needs about %s of memory (%s), more than this machine's %s: want a smaller value",
		what, Format(bytes), how, Format(Memory()))
}

// Format writes a byte count with a binary unit: "512 B", "3.2 GiB", "160000 TiB".
func Format(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 || b >= 100 {
		return fmt.Sprintf("%.0f %s", b, units[i])
	}
	return fmt.Sprintf("%.3g %s", b, units[i])
}
