#!/bin/sh
# Profiles the request paths of the replication-cost benchmark with JFR (in the JDK; no agent needed):
# the read-only and the changing request of the reference session, 1 thread, for each store given
# (default: lazysession's defaults without and with the near cache), then prints where the
# request-thread CPU goes (it/profile/jfr-summary.py). About three minutes per store.
#
#   it/profile/profile.sh [store ...]          (from the repository root; Redis settings as for the
#                                               benchmark, e.g. LAZYSESSION_TEST_REDIS_MODE=container)
#
# Recordings and summaries go to it/target/profile/<store>.{jfr,txt}.
set -eu
cd "$(dirname "$0")/../.."
out="$PWD/it/target/profile"
mkdir -p "$out"
jfc="$out/sampling.jfc"
# The JDK's "profile" settings, with Java method sampling every millisecond instead of every 10 ms.
java_home="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
sed 's|<setting name="period" control="method-sampling-java-interval">10 ms</setting>|<setting name="period" control="method-sampling-java-interval">1 ms</setting>|' \
  "$java_home/lib/jfr/profile.jfc" > "$jfc"
[ "$#" -gt 0 ] || set -- lazy-kryo-zstd lazy-kryo-zstd+near
for store in "$@"; do
  file="$out/$(echo "$store" | tr '+' '-')"
  ./mvnw -q -pl it -am -Pbench -DskipTests verify \
    -Dbench.stores="$store" -Dbench.sizes=reference -Dbench.workloads=read,write -Dbench.threads=1 \
    -Dbench.globalWarmupMillis=0 -Dbench.warmupMillis=3000 -Dbench.measureMillis=20000 \
    -Dbench.extras=false -Dbench.floorRounds=0 -Dbench.outputDir="$file" \
    -Dbench.jvmArgs="-XX:StartFlightRecording=filename=$file.jfr,settings=$jfc" \
    | grep -e "^redis-ping" -e "^$store " || true
  python3 it/profile/jfr-summary.py "$file.jfr" 25 | tee "$file.txt"
done
