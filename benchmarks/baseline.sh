#!/usr/bin/env bash
# Runs every benchmark of docs/PERFORMANCE.md in sequence, with the sizes recorded there, and
# writes each one's Markdown tables to benchmarks/target/baseline/NAME.md (progress in NAME.log).
# Build first: mvn -B -q -DskipTests package
# Usage: benchmarks/baseline.sh [NAME...]   (NAME: jmh b1 b1-jfr b1-pg b1-pg-profile b6 host daemon daemon-jfr b3 b3-jfr b4;
#        default all)
set -euo pipefail
cd "$(dirname "$0")/.."
jar=benchmarks/target/benchmarks.jar
out=benchmarks/target/baseline
mkdir -p "$out"
run() { # NAME ARGS...
  local name=$1; shift
  echo "== $name: $* (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  java -Xmx2g -cp "$jar" dev.vigil.benchmarks.Main "$@" >"$out/$name.md" 2>"$out/$name.log"
}
all=(jmh b1 b1-jfr b1-pg b1-pg-profile b6 host daemon daemon-jfr b3 b3-jfr b4)
for what in "${@:-${all[@]}}"; do
  case $what in
    jmh) java -jar "$jar" -rf text -rff "$out/jmh.txt" 'Decisions|EngineTick' >"$out/jmh.log" 2>&1 ;;
    b1) run b1 b1 --reps 3 --seconds 5 --dbs-tasks 20000 ;;
    b1-jfr)
      echo "== b1-jfr" >&2
      java -Xmx2g -XX:StartFlightRecording=settings=profile,filename="$out/b1.jfr" -cp "$jar" \
        dev.vigil.benchmarks.Main b1 --reps 1 --seconds 10 --dbs-tasks 5000 >"$out/b1-jfr.md" 2>"$out/b1-jfr.log"
      java -cp "$jar" dev.vigil.benchmarks.Main jfr-summary "$out/b1.jfr" >"$out/b1.jfr.txt" ;;
    b1-pg) run b1-pg b1-pg --reps 5 --seconds 5 --dbs-tasks 2000 ;;
    b1-pg-profile) # pg_stat_statements on the server, JFR on the client
      echo "== b1-pg-profile" >&2
      java -Xmx2g -XX:StartFlightRecording=settings=profile,filename="$out/b1-pg.jfr" -cp "$jar" \
        dev.vigil.benchmarks.Main b1-pg --reps 1 --seconds 10 --dbs-tasks 2000 --profile 1 \
        >"$out/b1-pg-profile.md" 2>"$out/b1-pg-profile.log"
      java -cp "$jar" dev.vigil.benchmarks.Main jfr-summary "$out/b1-pg.jfr" >"$out/b1-pg.jfr.txt" ;;
    b6) run b6 b6 --reps 3 --seconds 5 --settled 10000,100000,1000000 ;;
    host) run host host --hosts 20 ;;
    daemon) run daemon daemon --reps 3 --idle-seconds 30 --calls 5 --singles 5 --burst 8 ;;
    daemon-jfr) run daemon-jfr daemon --reps 1 --idle-seconds 30 --calls 1 --singles 1 --burst 8 --jfr "$PWD/$out" ;;
    b3) run b3 b3 --reps 3 --tasks 200 --cli-tasks 200 --concurrency 8 ;;
    b3-jfr) run b3-jfr b3 --reps 1 --tasks 200 --cli-tasks 3 --concurrency 8 --jfr "$PWD/$out" ;;
    b4) run b4 b4 --reps 3 --live 50,150,200 ;;
    *) echo "unknown: $what" >&2; exit 2 ;;
  esac
done
