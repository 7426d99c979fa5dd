package kb

import "unicode/utf8"

// DefaultReadLimit is read_note's default page size, in characters.
const DefaultReadLimit = 10000

// Page is a part of a note's content, cut at character (Unicode code
// point) boundaries, never inside a UTF-8 sequence.
type Page struct {
	Content        string
	Offset         int // characters before Content
	NextOffset     int // Offset + characters in Content
	HasMore        bool
	RemainingChars int // characters after Content
}

// paginate returns the characters [offset, offset+limit) of content. An
// offset at or past the end gives an empty page at the end.
func paginate(content string, offset, limit int) Page {
	total := utf8.RuneCountInString(content)
	start := min(max(offset, 0), total)
	end := start + min(max(limit, 0), total-start)
	from := byteIndex(content, start)
	to := from + byteIndex(content[from:], end-start)
	return Page{Content: content[from:to], Offset: start, NextOffset: end, HasMore: end < total, RemainingChars: total - end}
}

// byteIndex returns the byte offset of the n-th character of s.
func byteIndex(s string, n int) int {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}
