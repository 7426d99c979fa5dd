package confine

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// RedoSuffix ends the name of a redo file: a note's content before and
// after a write in place, kept beside it until the write is complete. Its
// name is TempPrefix + the note's name + "." + 16 hex digits + RedoSuffix.
const RedoSuffix = ".redo"

const redoMagic = "vaultgraph-redo 1\n"

func redoName(note, random string) string { return TempPrefix + note + "." + random + RedoSuffix }

// RedoTarget returns the name of the note a redo file name belongs to, or
// "" when name is not a redo file's.
func RedoTarget(name string) string {
	if !strings.HasPrefix(name, TempPrefix) || !strings.HasSuffix(name, RedoSuffix) {
		return ""
	}
	mid := name[len(TempPrefix) : len(name)-len(RedoSuffix)]
	i := strings.LastIndexByte(mid, '.')
	if i <= 0 || len(mid)-i-1 != 16 {
		return ""
	}
	return mid[:i]
}

func encodeRedo(old, data []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(redoMagic) + 24 + len(old) + len(data))
	b.WriteString(redoMagic)
	fmt.Fprintf(&b, "%d %d\n", len(old), len(data))
	b.Write(old)
	b.Write(data)
	return b.Bytes()
}

func decodeRedo(raw []byte) (old, data []byte, ok bool) {
	rest, found := bytes.CutPrefix(raw, []byte(redoMagic))
	if !found {
		return nil, nil, false
	}
	line, rest, found := bytes.Cut(rest, []byte("\n"))
	if !found {
		return nil, nil, false
	}
	a, b, found := strings.Cut(string(line), " ")
	n, err1 := strconv.Atoi(a)
	m, err2 := strconv.Atoi(b)
	if !found || err1 != nil || err2 != nil || n < 0 || m < 0 || n+m != len(rest) {
		return nil, nil, false
	}
	return rest[:n], rest[n:], true
}

// torn reports whether cur is what an interrupted write in place of data
// over old leaves: data's first k bytes, then old's from k on, cut at a
// length between the two.
func torn(cur, old, data []byte) bool {
	k := 0
	for k < len(cur) && k < len(data) && cur[k] == data[k] {
		k++
	}
	tail := cur[k:]
	if k > len(old) {
		return len(tail) == 0
	}
	return bytes.HasPrefix(old[k:], tail) || bytes.Equal(old[k:], tail)
}
