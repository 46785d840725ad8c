#!/usr/bin/env bash
# results.tsv -> testbed.md + testbed.png (io.fsp.it.testbed.TestbedReport, plotted with XChart).
# Usage: report.sh RESULTS.tsv RATE_MBIT OUT_DIR
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IT=$ROOT/integration-tests
if [[ ! -f $IT/target/test-classes/io/fsp/it/testbed/TestbedReport.class || ! -f $IT/target/testbed-classpath.txt
      || $IT/src/test/java/io/fsp/it/testbed/TestbedReport.java -nt $IT/target/test-classes/io/fsp/it/testbed/TestbedReport.class ]]; then
    echo "testbed: building the report program (mvn test-compile)" >&2
    (cd "$ROOT" && mvn -B -q -pl integration-tests -am test-compile -Dcheckstyle.skip >&2)
fi
exec java -Djava.awt.headless=true -cp "$IT/target/test-classes:$(cat "$IT/target/testbed-classpath.txt")" \
    io.fsp.it.testbed.TestbedReport "$@"
