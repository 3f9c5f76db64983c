#!/bin/bash
# cliwake.sh BIN: how long a source added by the CLI (another process) waits for the running
# server to fetch it. Starts BIN as the server on a fresh data directory, lets it sit idle for
# 15 s (its queues' idle waits grow to IdlePoll), then runs `BIN source add` three times, 12 s
# apart, on feeds of testdata/corpus/feeds served over loopback, and prints the seconds from the
# command's start to the source fetched (the command's own probe of the URL included).
# Needs python3 (the file server and reading the API's JSON). BENCHMARKS.md, session 23.
set -eu
BIN=$(realpath "$1")
cd "$(dirname "$0")/.."
D=$(mktemp -d)
export XDG_DATA_HOME=$D/data XDG_CONFIG_HOME=$D/config BROWSER=true
(cd testdata/corpus/feeds && exec python3 -m http.server 8931 --bind 127.0.0.1 >/dev/null 2>&1) &
FILES=$!
"$BIN" serve --no-browser --addr 127.0.0.1:7779 > "$D/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER $FILES 2>/dev/null; rm -rf "$D"' EXIT
sleep 15
for f in Permalinks.xml HREFConsideredHarmful.xml PaulDixExplainsNothing.xml; do
  t0=$(date +%s.%N)
  "$BIN" source add "http://127.0.0.1:8931/$f" > /dev/null
  until curl -s http://127.0.0.1:7779/api/sources | python3 -c 'import json,sys; d=json.load(sys.stdin); s=max(d,key=lambda s:s["id"]); sys.exit(0 if s["lastFetchedAt"] else 1)'; do sleep 0.05; done
  t1=$(date +%s.%N)
  echo "$f: fetched $(python3 -c "print(round($t1-$t0,2))") s after the CLI added it"
  sleep 12
done
