#!/usr/bin/env bash
# stage.sh VERSION REPO SHARE OUT: for each package (fsp, fsp-relay, fsp-server), OUT/PKG/control (its control
# files, with the Debian version) and OUT/PKG/data (what it installs besides /usr/lib/fsp/PKG, which comes from the
# self-contained archive, and the /usr/bin links; both set in fsp-dist/pom.xml). SHARE: the built man pages and
# shell completion (share/ of the archive).
set -euo pipefail
version=$1 repo=$2 share=$3 out=$4
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
deb_version=${version/-/\~}  # 0.1.0-SNAPSHOT sorts before 0.1.0
rm -rf "$out"
for pkg in fsp fsp-relay fsp-server; do
  control=$out/$pkg/control data=$out/$pkg/data doc=$out/$pkg/data/usr/share/doc/$pkg
  mkdir -p "$control" "$doc"
  for f in "$src/$pkg"/*; do
    sed "s/@VERSION@/$deb_version/" "$f" > "$control/$(basename "$f")"
  done
  cp "$src/copyright" "$doc/copyright"
  mkdir -p "$data/usr/share/lintian/overrides"
  sed "s/@PACKAGE@/$pkg/g" "$src/lintian-overrides" > "$data/usr/share/lintian/overrides/$pkg"
  sed "s/@PACKAGE@/$pkg/; s/@VERSION@/$deb_version/" "$src/changelog" | gzip -9n > "$doc/changelog.gz"
  # Its program's man pages (the program's and its subcommands'), compressed as Debian keeps them, and its completion
  # where bash-completion and zsh look.
  man=$data/usr/share/man/man1
  mkdir -p "$man" "$data/usr/share/bash-completion/completions" "$data/usr/share/zsh/vendor-completions"
  for page in "$share/man/man1/$pkg".1 "$share/man/man1/$pkg"-*.1; do
    sub=$(basename "$page" .1)
    # fsp's subcommands, not the other programs' pages
    if [[ $pkg == fsp && $sub =~ ^fsp-(relay|server) ]]; then continue; fi
    gzip -9n < "$page" > "$man/$sub.1.gz"
  done
  # sourced, not run: without the script's #! line
  sed '1{/^#!/d}' "$share/bash-completion/completions/$pkg" > "$data/usr/share/bash-completion/completions/$pkg"
  cp "$share/zsh/site-functions/_$pkg" "$data/usr/share/zsh/vendor-completions/_$pkg"
done
# The units as in conf/systemd, run from the package's links.
for unit in fsp-relay fsp-server; do
  mkdir -p "$out/$unit/data/lib/systemd/system" "$out/$unit/data/etc/fsp"
  sed -e "s|/opt/fsp/bin/|/usr/bin/|g" \
      -e "s|^Documentation=.*|Documentation=file:///usr/share/doc/$unit/operating.md.gz|" \
      -e "s|^# Install (the distribution archive.*|# Installed by the package $unit: edit its configuration in /etc/fsp, then|" \
      -e '/^#   \(cp\|mkdir\|useradd\) /d' \
      "$repo/conf/systemd/$unit.service" > "$out/$unit/data/lib/systemd/system/$unit.service"
done
cp "$repo/conf/relay.conf.example" "$out/fsp-relay/data/etc/fsp/relay.conf"
cp "$repo/conf/server.conf.example" "$out/fsp-server/data/etc/fsp/server.conf"
cp "$repo/conf/users.example" "$out/fsp-server/data/etc/fsp/users"
mkdir -p "$out/fsp/data/usr/share/doc/fsp/examples"
cp "$repo/conf/client.conf.example" "$out/fsp/data/usr/share/doc/fsp/examples/client.conf"
for pkg in fsp fsp-relay fsp-server; do
  gzip -9n < "$repo/docs/operating.md" > "$out/$pkg/data/usr/share/doc/$pkg/operating.md.gz"
done
