package memory

import (
	"math"
	"strconv"
	"strings"
)

// Confidence arithmetic (spec 004, memory_validate). Confidence is kept in
// thousandths, so every step is exact: 0.3 plus six successes is 0.9, and
// the golden rule threshold is met exactly when it should be.
const (
	// Scale is how many units make a confidence of 1.0.
	Scale = 1000
	// InitialConfidence is the confidence of a new memory (0.3).
	InitialConfidence = 300
	// HelpfulStep is added for helpful feedback or a success (+0.1).
	HelpfulStep = 100
	// UnhelpfulStep is subtracted for unhelpful feedback or a failure (−0.15).
	UnhelpfulStep = 150
	// GoldenThreshold is the confidence at which a memory becomes a golden
	// rule (0.9).
	GoldenThreshold = 900
)

// Adjust returns the confidence after one piece of feedback, clamped to
// [0, Scale].
func Adjust(confidence int, positive bool) int {
	if positive {
		confidence += HelpfulStep
	} else {
		confidence -= UnhelpfulStep
	}
	return min(max(confidence, 0), Scale)
}

// Promotes reports whether moving from old to next (with the memory's
// current type) makes it a golden rule: next reaches the threshold and it
// is not one already.
func Promotes(memoryType string, next int) bool {
	return memoryType != TypeGoldenRule && next >= GoldenThreshold
}

// IsGolden reports whether a memory is protected as a golden rule: of that
// type, or at the threshold (spec 004, memory_forget).
func IsGolden(memoryType string, confidence int) bool {
	return memoryType == TypeGoldenRule || confidence >= GoldenThreshold
}

// ToFloat converts thousandths to the float clients see (0.9, not
// 0.8999999). The float is the nearest double to the decimal, so it
// prints as the decimal.
func ToFloat(units int) float64 {
	f, _ := strconv.ParseFloat(strconv.Itoa(units/Scale)+"."+pad3(units%Scale), 64)
	return f
}

func pad3(n int) string {
	s := strconv.Itoa(n)
	return strings.Repeat("0", 3-len(s)) + s
}

// FromFloat converts a client's confidence (a filter) to thousandths,
// rounding to the nearest unit.
func FromFloat(f float64) int { return int(math.Round(f * Scale)) }

// Format writes a confidence as the context block shows it: at least one
// decimal, no trailing zeros ("0.7", "0.95", "1.0").
func Format(units int) string {
	s := strconv.Itoa(units/Scale) + "." + pad3(units%Scale)
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	return s
}
