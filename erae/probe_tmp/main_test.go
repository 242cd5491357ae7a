package probe

import (
	"fmt"
	"math"
	"testing"

	"github.com/viterin/vek/vek32"
)

func TestExp(t *testing.T) {
	for _, n := range []int{1, 8, 16, 17, 33} {
		r := make([]float32, n)
		for i := range r { r[i] = float32(math.Inf(-1)) }
		vek32.Exp_Inplace(r)
		fmt.Println(n, r[0], r[n-1])
	}
}
