// Package wordpiece is BERT's uncased WordPiece tokenizer: the text is
// cleaned, CJK ideographs are split apart, accents are stripped, letters
// lower-cased and words split at whitespace and punctuation (BERT's "basic
// tokenisation"), then each word is cut into the longest vocabulary pieces
// from the left, continuation pieces carrying the "##" prefix.
//
// It reproduces the Hugging Face tokenizers BertNormalizer +
// BertPreTokenizer + WordPiece pipeline of all-MiniLM-L6-v2 (clean_text,
// handle_chinese_chars, strip_accents and lowercase all on); the tests
// compare its output with that library's on tricky strings.
package wordpiece

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

const (
	// maxWordRunes is BERT's max_input_chars_per_word: a longer word is
	// one unknown token.
	maxWordRunes = 100
	continuation = "##"
)

// Tokenizer maps text to vocabulary ids. It is immutable and safe for
// concurrent use.
type Tokenizer struct {
	starts map[string]int32 // pieces that may start a word
	inner  map[string]int32 // continuation pieces, keyed without "##"
	unk    int32
	size   int
}

// New builds a tokenizer over vocab, where a token's id is its index.
// unknown names the token produced for a word that cannot be cut into
// vocabulary pieces; it must be in vocab.
func New(vocab []string, unknown string) (*Tokenizer, error) {
	t := &Tokenizer{
		starts: make(map[string]int32, len(vocab)),
		inner:  make(map[string]int32, len(vocab)/4),
		unk:    -1,
		size:   len(vocab),
	}
	for i, tok := range vocab {
		id := int32(i)
		if tok == unknown {
			t.unk = id
		}
		if piece, ok := strings.CutPrefix(tok, continuation); ok && piece != "" {
			if _, dup := t.inner[piece]; !dup {
				t.inner[piece] = id
			}
			continue
		}
		if _, dup := t.starts[tok]; !dup {
			t.starts[tok] = id
		}
	}
	if t.unk < 0 {
		return nil, fmt.Errorf("wordpiece: unknown token %q is not in the vocabulary", unknown)
	}
	return t, nil
}

// Load reads a vocabulary in BERT's vocab.txt format (one token per line,
// the line number is the id) and builds a tokenizer with "[UNK]" as the
// unknown token.
func Load(r io.Reader) (*Tokenizer, error) {
	var vocab []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		vocab = append(vocab, strings.TrimSuffix(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("wordpiece: read vocabulary: %w", err)
	}
	return New(vocab, "[UNK]")
}

// VocabSize is the number of ids the tokenizer may produce.
func (t *Tokenizer) VocabSize() int { return t.size }

// UnknownID is the id of the unknown token.
func (t *Tokenizer) UnknownID() int32 { return t.unk }

// Encode returns the ids of text's tokens, without special tokens ([CLS],
// [SEP]) and without truncation.
func (t *Tokenizer) Encode(text string) []int32 {
	return t.AppendIDs(nil, text)
}

// AppendIDs appends the ids of text's tokens to dst and returns it; reusing
// dst across calls saves allocations.
func (t *Tokenizer) AppendIDs(dst []int32, text string) []int32 {
	splitWords(text, func(word []byte) {
		dst = t.appendWord(dst, word)
	})
	return dst
}

// appendWord cuts one pre-tokenised word into the longest vocabulary
// pieces, left to right; if some rest of the word matches no piece, the
// whole word is the unknown token.
func (t *Tokenizer) appendWord(dst []int32, word []byte) []int32 {
	if utf8.RuneCount(word) > maxWordRunes {
		return append(dst, t.unk)
	}
	mark := len(dst)
	for start := 0; start < len(word); {
		table := t.starts
		if start > 0 {
			table = t.inner
		}
		end := len(word)
		found := int32(-1)
		for end > start {
			// string(b) in a map index does not allocate.
			if id, ok := table[string(word[start:end])]; ok {
				found = id
				break
			}
			_, size := utf8.DecodeLastRune(word[start:end])
			end -= size
		}
		if found < 0 {
			return append(dst[:mark], t.unk)
		}
		dst = append(dst, found)
		start = end
	}
	return dst
}
