#!/usr/bin/env bash
# make-runtime.sh JAVA_HOME OUT: a Java runtime holding only the modules FSP uses, for the self-contained archive.
# jdeps over the jars names java.base, java.desktop (JNA), java.management, java.naming, java.sql, jdk.jfr and
# jdk.unsupported; it misses jdk.crypto.ec (the EC key pair of the certificates) and jdk.net (socket options a
# transfer sets), found only at run time.
set -euo pipefail
jdk=$1 out=$2
modules=java.base,java.desktop,java.management,java.naming,java.sql,jdk.jfr,jdk.unsupported,jdk.crypto.ec,jdk.net
rm -rf "$out"
# --generate-cds-archive: the JDK's own classes parsed once here (lib/server/classes.jsa), not at every start.
# FSP's classes get their archive at the first start, where the launcher may write (bin/launch).
"$jdk/bin/jlink" --add-modules "$modules" --output "$out" --compress=2 --strip-debug --no-header-files \
  --no-man-pages --generate-cds-archive
# The stock provider list names providers whose modules this runtime lacks; each is looked up, and missed, at the
# first use of security (fsp-relay fingerprint 0.37 -> 0.27 s). Kept: those in the modules above.
sec=$out/conf/security/java.security
grep -v '^security\.provider\.[0-9]*=' "$sec" > "$sec.new"
n=1
for p in SUN SunRsaSign SunEC SunJSSE SunJCE; do
  echo "security.provider.$n=$p" >> "$sec.new"
  n=$((n + 1))
done
mv "$sec.new" "$sec"
chmod -R u+w,go-w "$out"
# The JDK's executables and libraries as a distribution ships them: without their symbol tables.
if command -v strip >/dev/null; then
  find "$out/bin" "$out/lib" -type f \( -name '*.so' -o -perm -u+x \) -exec strip --strip-unneeded {} +
fi
