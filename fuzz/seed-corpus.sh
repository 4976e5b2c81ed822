#!/usr/bin/env bash
# Fill fuzz/corpus/pipeline with the project's Java fixtures (the seed corpus; not committed).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/pipeline
find ../fixtures -name '*.java' -print0 | while IFS= read -r -d '' f; do
    cp "$f" "corpus/pipeline/$(echo "$f" | sed 's|^\.\./fixtures/||; s|/|_|g')"
done
cp ../tests/data/fuzz-regressions/* corpus/pipeline/ 2>/dev/null || true
rm -f corpus/pipeline/README.md
echo "seed corpus: $(ls corpus/pipeline | wc -l) files"
