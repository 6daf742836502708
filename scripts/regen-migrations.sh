#!/usr/bin/env bash
# Development only, before the first release lands: rebuild the migrations from the schema as one
# generated init migration plus the hand-written ones in src/db/custom. Serialized with flock
# because several people may run it in one tree.
set -euo pipefail
cd "$(dirname "$0")/.."
exec 9>/tmp/workboard-regen.lock
flock 9
rm -rf src/db/migrations
npx drizzle-kit generate --name init >/dev/null
for f in src/db/custom/*.sql; do
  name=$(basename "$f" .sql); name=${name#*_}
  npx drizzle-kit generate --custom --name "$name" >/dev/null
  target=$(ls src/db/migrations/*_"$name".sql | tail -1)
  cp "$f" "$target"
done
ls src/db/migrations
