#!/usr/bin/env bash
# Phoenix's shaded client (this directory's pom) for the release tests, built once per Maven
# repository: when the repository holds an install of this very pom, that install's jar is used;
# otherwise this builds and installs it (Phoenix 5.2.1's released artifacts and Phoenix's own
# phoenix-client-parent rules, shaded with shader/'s prefix-first shader). release-it's build
# calls it; by hand:
#   stock-hbase/phoenix-client/obtain.sh ~/.m2/repository "$(dirname "$(dirname "$(readlink -f "$(command -v mvn)")")")" /tmp/record
# Arguments: the local repository, a Maven home, the file to write how the jar was obtained to,
# and optionally offline=true to build offline.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
repo="$1"
maven="$2/bin/mvn"
record="$3"
offline=()
if [[ "${4:-}" == offline=true ]]; then offline=(-o); fi

installed="$repo/io/blockscope/blockscope-stock-phoenix-client/5.2.1"
jar="$installed/blockscope-stock-phoenix-client-5.2.1-embedded-hbase-2.6.jar"
if [[ -f "$jar" ]] && cmp -s "$installed/blockscope-stock-phoenix-client-5.2.1.pom" "$here/pom.xml"; then
  how="reused: installed in the local Maven repository by an earlier build of stock-hbase/phoenix-client/pom.xml, which is unchanged since"
  echo "[phoenix-client] reusing Phoenix's shaded client installed in $repo (built from this pom earlier)"
else
  echo "[phoenix-client] Phoenix's shaded client is not installed in $repo from this pom: building it once (stock-hbase/phoenix-client; about 2 minutes on 2 cores, and about 150 MB of Phoenix's dependencies with an empty repository)"
  start=$(date +%s)
  # the shader the pom names, and the parent pom its own pom refers to
  "$maven" -B -ntp -q "${offline[@]}" -Dmaven.repo.local="$repo" -f "$root/pom.xml" \
    -pl stock-hbase/phoenix-client/shader -am -DskipTests -Dspotless.check.skip=true \
    -Dmdep.analyze.skip=true install
  "$maven" -B -ntp -q "${offline[@]}" -Dmaven.repo.local="$repo" -f "$here/pom.xml" install
  how="built: by stock-hbase/phoenix-client/pom.xml from Phoenix 5.2.1's released artifacts in $(( $(date +%s) - start )) s, and installed in the local Maven repository for the next build"
  echo "[phoenix-client] built and installed in $(( $(date +%s) - start )) s"
fi
mkdir -p "$(dirname "$record")"
printf 'jar=%s\nobtained=%s\n' "$jar" "$how" > "$record"
