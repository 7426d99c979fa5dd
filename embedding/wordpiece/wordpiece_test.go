package wordpiece_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/embedding/wordpiece"
)

// The cases were produced by scripts/embedding/distill.py with the Hugging
// Face tokenizers library and all-MiniLM-L6-v2's tokenizer.json.
type tokenizerCase struct {
	Text   string   `json:"text"`
	IDs    []int32  `json:"ids"`
	Tokens []string `json:"tokens"`
}

func loadVocab(t *testing.T) *wordpiece.Tokenizer {
	t.Helper()
	f, err := os.Open("../builtin/vocab.txt")
	require.NoError(t, err)
	defer f.Close()
	tok, err := wordpiece.Load(f)
	require.NoError(t, err)
	return tok
}

func TestEncodeMatchesHuggingFaceTokenizer(t *testing.T) {
	tok := loadVocab(t)
	raw, err := os.ReadFile("../testdata/tokenizer_cases.json")
	require.NoError(t, err)
	var fixture struct {
		Cases      []tokenizerCase
		VaultNotes map[string][]int32 `json:"vault_notes"`
	}
	require.NoError(t, json.Unmarshal(raw, &fixture))
	require.NotEmpty(t, fixture.Cases)
	require.NotEmpty(t, fixture.VaultNotes)
	for path, want := range fixture.VaultNotes {
		text, err := os.ReadFile("../testdata/evalvault/" + path)
		require.NoError(t, err)
		assert.Equal(t, want, tok.Encode(string(text)), "note %s", path)
	}
	for _, c := range fixture.Cases {
		got := tok.Encode(c.Text)
		if len(c.IDs) == 0 {
			assert.Empty(t, got, "%q", c.Text)
			continue
		}
		assert.Equal(t, c.IDs, got, "%q: want tokens %v", c.Text, c.Tokens)
	}
}

func TestEncodeGreedyLongestMatch(t *testing.T) {
	vocab := []string{"[UNK]", "un", "##aff", "##able", "##a", "aff", "affable", "##ff", ","}
	tok, err := wordpiece.New(vocab, "[UNK]")
	require.NoError(t, err)
	// "unaffable" -> un ##aff ##able, not un ##a ##ff ...: the longest piece wins.
	assert.Equal(t, []int32{1, 2, 3}, tok.Encode("unaffable"))
	assert.Equal(t, []int32{6}, tok.Encode("AFFABLE"), "lower-cased, whole word in vocab")
	// A word with an uncoverable rest is one [UNK], pieces already found are dropped.
	assert.Equal(t, []int32{0, 8, 6}, tok.Encode("unaffablez, affable"))
	assert.Equal(t, []int32{0}, tok.Encode(strings.Repeat("a", 101)), "over 100 characters")
}

func TestNewRejectsVocabularyWithoutUnknownToken(t *testing.T) {
	_, err := wordpiece.New([]string{"a", "b"}, "[UNK]")
	assert.Error(t, err)
}

func TestAppendIDsReusesBuffer(t *testing.T) {
	tok := loadVocab(t)
	buf := make([]int32, 0, 64)
	first := tok.AppendIDs(buf, "hello world")
	second := tok.AppendIDs(first[:0], "hello world")
	assert.Equal(t, first, second)
	assert.Equal(t, tok.Encode("hello world"), second)
}

func FuzzEncodeNeverPanics(f *testing.F) {
	f.Add("Hello, World! naïve 日本語 \x00\xff")
	vocab := []string{"[UNK]", "a", "##b", "c"}
	tok, err := wordpiece.New(vocab, "[UNK]")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, id := range tok.Encode(s) {
			if id < 0 || int(id) >= tok.VocabSize() {
				t.Fatalf("id %d out of range", id)
			}
		}
	})
}
