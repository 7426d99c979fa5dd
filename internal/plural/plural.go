// Package plural writes counts of things in English for messages people
// read ("1 note", "2 notes", "3 memories"): one rule for the CLI, the logs
// and the tools' advice.
package plural

import (
	"strconv"
	"strings"
)

// Count returns n and noun, the noun in its plural unless n is 1: "s"
// added, or "y" after a consonant made "ies" (memory, memories; day, days).
func Count(n int, noun string) string {
	s := strconv.Itoa(n) + " " + noun
	if n == 1 {
		return s
	}
	if strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])) {
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}
