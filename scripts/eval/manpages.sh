#!/usr/bin/env bash
# Writes manual pages of common commands as markdown notes, one per page: a
# real documentation corpus for the retrieval evaluation (embedding/eval).
# Section headings (NAME, DESCRIPTION, ...) become "## " sections; a note
# stops at about 24 KB, at a line end.
#
#   scripts/eval/manpages.sh embedding/testdata/hardeval/manpages cmd...
set -euo pipefail
out=$1
shift
mkdir -p "$out"
for name in "$@"; do
  text=$(MANWIDTH=90 MAN_KEEP_FORMATTING=0 man -P cat "$name" 2>/dev/null | col -bx) || {
    echo "manpages: no manual page for $name" >&2
    exit 1
  }
  {
    printf -- '---\ntitle: %s\ntags: [man, command]\n---\n# %s\n\n' "$name" "$name"
    printf '%s\n' "$text" | sed -e '1d' -e '$d' | awk '
      /^[A-Z][A-Z0-9 ,\/-]+$/ { print "## " $0; next }
      { sub(/^       /, ""); print }' | awk -v max=24000 '{ n += length($0) + 1; if (n <= max) print }'
  } > "$out/$name.md"
done
