package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEachVaultGetsItsOwnStateFolder(t *testing.T) {
	a := VaultStateDir("/state", "/home/me/My Notes")
	b := VaultStateDir("/state", "/srv/My Notes")
	assert.NotEqual(t, a, b, "vaults with the same folder name must not share state")
	assert.Equal(t, a, VaultStateDir("/state", "/home/me/My Notes"), "the folder must be stable across runs")
	assert.True(t, strings.HasPrefix(a, "/state/My-Notes-"), a)
}
