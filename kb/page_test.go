package kb

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPaginateFollowsTheSpecExample(t *testing.T) {
	content := strings.Repeat("a", 25000)
	want := []Page{
		{Offset: 0, NextOffset: 10000, HasMore: true, RemainingChars: 15000},
		{Offset: 10000, NextOffset: 20000, HasMore: true, RemainingChars: 5000},
		{Offset: 20000, NextOffset: 25000, HasMore: false, RemainingChars: 0},
	}
	offset := 0
	for i, w := range want {
		p := paginate(content, offset, DefaultReadLimit)
		if p.Offset != w.Offset || p.NextOffset != w.NextOffset || p.HasMore != w.HasMore || p.RemainingChars != w.RemainingChars {
			t.Fatalf("page %d = %+v, want %+v", i, p, w)
		}
		if len(p.Content) != p.NextOffset-p.Offset {
			t.Fatalf("page %d holds %d characters", i, len(p.Content))
		}
		offset = p.NextOffset
	}
}

func TestPaginateCountsCharactersNotBytes(t *testing.T) {
	content := "héllo wörld 👋🏽 ノート" // 2-, 3- and 4-byte sequences
	total := utf8.RuneCountInString(content)
	var joined strings.Builder
	for offset := 0; ; {
		p := paginate(content, offset, 3)
		if !utf8.ValidString(p.Content) {
			t.Fatalf("page at %d splits a UTF-8 sequence: %q", offset, p.Content)
		}
		if n := utf8.RuneCountInString(p.Content); n > 3 || p.NextOffset != offset+n || p.RemainingChars != total-p.NextOffset {
			t.Fatalf("page at %d: %+v", offset, p)
		}
		joined.WriteString(p.Content)
		if !p.HasMore {
			break
		}
		offset = p.NextOffset
	}
	if joined.String() != content {
		t.Fatalf("pages join to %q", joined.String())
	}
}

func TestPaginatePastTheEnd(t *testing.T) {
	p := paginate("abc", 10, 5)
	if p.Content != "" || p.Offset != 3 || p.NextOffset != 3 || p.HasMore || p.RemainingChars != 0 {
		t.Fatalf("%+v", p)
	}
	if p := paginate("abc", 1, int(^uint(0)>>1)); p.Content != "bc" || p.NextOffset != 3 {
		t.Fatalf("huge limit: %+v", p)
	}
}
