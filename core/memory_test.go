package core_test

import (
	"math"
	"testing"

	"github.com/vaultgraph/vaultgraph/core"
)

func TestCosine01(t *testing.T) {
	s := float32(1 / math.Sqrt2)
	cases := []struct {
		name string
		a, b []float32
		want float64
	}{
		{"same direction", []float32{1, 0, 0, 0, 0}, []float32{1, 0, 0, 0, 0}, 1},
		{"orthogonal", []float32{1, 0, 0, 0, 0}, []float32{0, 1, 0, 0, 0}, 0},
		{"opposite clamps to 0", []float32{1, 0, 0, 0, 0}, []float32{-1, 0, 0, 0, 0}, 0},
		{"45 degrees, odd length", []float32{0, 0, 0, 0, 1}, []float32{0, 0, 0, s, s}, float64(s)},
		{"different lengths are not comparable", []float32{1}, []float32{1, 0}, 0},
		{"zero vector", []float32{0, 0}, []float32{1, 0}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := core.Cosine01(c.a, c.b); math.Abs(got-c.want) > 1e-6 {
				t.Errorf("Cosine01 = %v, want %v", got, c.want)
			}
		})
	}
}
