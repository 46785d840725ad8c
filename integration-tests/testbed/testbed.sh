#!/usr/bin/env bash
# The FSP paper's testbed (004 §4, Figure 4) rebuilt with network namespaces on this machine, and the
# transfers of its Figures 5 and 6 run on it, with GridFTP and vsftpd + curl over the direct path beside them.
#
#   bin/bench-testbed [--quick] [--rate-mbit 10] [--runs 3] [--size-mb 16] [--out DIR] [--no-peers] [--evacuation]
#                     [--data file|mixed|both (default both)] [--only REGEX (scenarios to run)]
#                     [--get-options "OPTIONS for every fsp get" (default: --block-size 256K)]
#
# Run as root. Topology (all addresses in 10.77.0.0/24, which exists only inside these namespaces):
#
#   tb-srv (10.77.0.2) ──10R── ┐
#   tb-r1  (10.77.0.11) ──R─── ┤
#   tb-r2  (10.77.0.12) ──R─── ┤ tb-rt: bridge "core" (the Gbit switch)
#   tb-r4  (10.77.0.14) ──R─── ┤   (its link also carries cross traffic from tb-x)
#   tb-x   (10.77.0.9)  ──10R─ ┤
#   tb-sw ──────────────R───── ┘ one shared uplink (the paper's client and IN3 behind one 100 Mbit line)
#     ├─ tb-cli (10.77.0.3)
#     └─ tb-r3  (10.77.0.13)
#
# Data sets: "one file" of --size-mb MiB, and "mixed": about as many bytes in 87 files of very different sizes
# (half the bytes in one file, four of 1/16, 64 of 1/256, tiny and empty ones) in nested directories.
#
# R is --rate-mbit (default 10: the paper's 100 Mbit/s scaled down by 10, the server's link 10x faster).
# Every link is shaped in both directions with tbf on the sending end. Everything is torn down on exit,
# including after a failure or Ctrl-C.
# --evacuation adds the evacuation of issue 14: the operator at the origin runs `fsp evacuate` (in tb-srv) to relays
# 1, 2 and 4, the origin server stops, and the safe site (tb-cli) runs `fsp collect`; "send" is the whole evacuate
# process, "total" evacuate plus the whole collect process, beside "direct" (the same data, server to client).
# Every client is timed the same way: wall time of its whole process (fsp get, globus-url-copy, curl, lftp), JVM
# start and login included ("total"); the striping figure ("send") is fsp get's own, from its JSON summary.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RATE=10
RUNS=3
SIZE_MB=16
QUICK=0
RATE_SET=0
ONLY=""
GET_OPTS="--block-size 256K"
PEERS=1
EVACUATION=0
OUT=""
DATASETS=(file mixed)
while [[ $# -gt 0 ]]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --rate-mbit) RATE=$2; RATE_SET=1; shift ;;
        --runs) RUNS=$2; shift ;;
        --size-mb) SIZE_MB=$2; shift ;;
        --out) OUT=$2; shift ;;
        --no-peers) PEERS=0 ;;
        --evacuation) EVACUATION=1 ;;
        --only) ONLY=$2; shift ;;
        --data) case "$2" in file|mixed) DATASETS=("$2") ;; both) DATASETS=(file mixed) ;;
                    *) echo "testbed: --data $2 (expected: file, mixed or both)" >&2; exit 2 ;; esac; shift ;;
        --get-options) GET_OPTS=$2; shift ;;
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "testbed: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
if [[ $QUICK == 1 ]]; then
    # quick (CI): faster links so the one small transfer takes seconds
    RUNS=1; SIZE_MB=4; PEERS=0; DATASETS=(file); [[ $RATE_SET == 1 ]] || RATE=40
fi
[[ $(id -u) == 0 ]] || { echo "testbed: must run as root (network namespaces, tc)" >&2; exit 2; }
command -v ip >/dev/null && command -v tc >/dev/null || { echo "testbed: needs ip and tc (iproute2)" >&2; exit 2; }

# one testbed at a time: the namespace names are fixed
exec 9>/run/fsp-testbed.lock
flock -n 9 || { echo "testbed: another testbed is running (lock /run/fsp-testbed.lock)" >&2; exit 2; }

NS_ALL=(tb-rt tb-sw tb-srv tb-cli tb-r1 tb-r2 tb-r3 tb-r4 tb-x)
WORK=$(mktemp -d /tmp/fsp-testbed.XXXXXX)
OUT=${OUT:-$ROOT/integration-tests/target/testbed}
mkdir -p "$OUT"
PIDS=()

teardown() {
    local rc=$?
    for p in "${PIDS[@]}"; do
        kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true
    done
    sleep 0.5
    for p in "${PIDS[@]}"; do
        kill -9 -- "-$p" 2>/dev/null || kill -9 "$p" 2>/dev/null || true
    done
    for ns in "${NS_ALL[@]}"; do
        # killing what still runs in the namespace: only processes this script started live there
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
        ip netns del "$ns" 2>/dev/null || true
        rm -rf "/etc/netns/$ns"
    done
    rm -rf "$WORK"
    exit $rc
}
trap teardown EXIT
trap 'exit 130' INT TERM

log() { printf 'testbed: %s\n' "$*" >&2; }
inns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# --- topology ---------------------------------------------------------------------------------------
for ns in "${NS_ALL[@]}"; do
    ip netns del "$ns" 2>/dev/null || true
    ip netns add "$ns"
    inns "$ns" ip link set lo up
    mkdir -p "/etc/netns/$ns"
done
inns tb-rt ip link add core type bridge
inns tb-rt ip link set core up
inns tb-sw ip link add edge type bridge
inns tb-sw ip link set edge up

# shape DEV in NS to MBIT (tbf: this kernel has no netem)
shape() {
    local ns=$1 dev=$2 mbit=$3
    # burst: at least one 64 KiB GSO packet, ~4 ms of data at the rate
    local burst=$(( mbit * 1000000 / 8 / 250 )); (( burst < 70000 )) && burst=70000
    inns "$ns" tc qdisc add dev "$dev" root tbf rate "${mbit}mbit" burst "$burst" latency 100ms
}

# link NS (address ADDR) to bridge BR in BRNS, shaped to MBIT both ways (0: unshaped)
attach() {
    local ns=$1 addr=$2 brns=$3 br=$4 mbit=$5 port=p-${1#tb-}
    ip link add eth0 netns "$ns" type veth peer name "$port" netns "$brns"
    inns "$brns" ip link set "$port" master "$br" up
    inns "$ns" ip addr add "$addr/24" dev eth0
    inns "$ns" ip link set eth0 up
    if [[ $mbit != 0 ]]; then shape "$ns" eth0 "$mbit"; shape "$brns" "$port" "$mbit"; fi
}

FAST=$(( RATE * 10 ))
attach tb-srv 10.77.0.2 tb-rt core "$FAST"
attach tb-r1 10.77.0.11 tb-rt core "$RATE"
attach tb-r2 10.77.0.12 tb-rt core "$RATE"
attach tb-r4 10.77.0.14 tb-rt core "$RATE"
attach tb-x 10.77.0.9 tb-rt core "$FAST"
attach tb-cli 10.77.0.3 tb-sw edge 0
attach tb-r3 10.77.0.13 tb-sw edge 0
# the shared uplink between the two switches
ip link add up0 netns tb-sw type veth peer name p-sw netns tb-rt
inns tb-sw ip link set up0 master edge up
inns tb-rt ip link set p-sw master core up
shape tb-sw up0 "$RATE"
shape tb-rt p-sw "$RATE"

HOSTS="127.0.0.1 localhost
10.77.0.2 srv
10.77.0.3 cli
10.77.0.9 x
10.77.0.11 r1
10.77.0.12 r2
10.77.0.13 r3
10.77.0.14 r4
10.77.0.2 $(hostname)"
for ns in "${NS_ALL[@]}"; do
    echo "$HOSTS" > "/etc/netns/$ns/hosts"        # GridFTP resolves its own name
    echo "nameserver 127.0.0.1" > "/etc/netns/$ns/resolv.conf"
done
log "topology up: server ${FAST} Mbit/s, relays and shared client uplink ${RATE} Mbit/s"

# --- data -------------------------------------------------------------------------------------------
DATA=$WORK/data
mkdir -p "$DATA" "$WORK/recv"
head -c $(( SIZE_MB * 1024 * 1024 )) /dev/urandom > "$DATA/big.bin"

# the mixed data set: sizes that are not multiples of the block size, many small files, empty ones
make_mixed() { # DIR MIB
    local d=$1 kib=$(( $2 * 1024 )) i
    mkdir -p "$d/large" "$d/medium/a" "$d/small/b/c"
    head -c $(( kib / 2 * 1024 )) /dev/urandom > "$d/large/half.bin"
    for i in 1 2 3 4; do head -c $(( kib / 16 * 1024 + i * 1000 + 7 )) /dev/urandom > "$d/medium/a/part-$i.dat"; done
    for i in $(seq 1 64); do head -c $(( kib / 256 * 1024 - i * 13 )) /dev/urandom > "$d/small/b/c/f$i.bin"; done
    for i in $(seq 1 16); do head -c $(( i * 211 )) /dev/urandom > "$d/small/tiny-$i"; done
    : > "$d/small/empty-1"
    : > "$d/empty-2"
}
make_mixed "$DATA/mixed" "$SIZE_MB"

# names and contents of every file under DIR, as one digest
tree_digest() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1; }
tree_bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }'; }

# the data set the next transfers move: what is fetched, where it lands, how many bytes, its digest
use_data() { # file|mixed
    DS=$1
    case "$DS" in
        file) DS_LABEL="one file"; DS_REMOTE=big.bin; DS_DEST=$WORK/recv/big.bin; DS_BYTES=$(stat -c %s "$DATA/big.bin")
              DS_WANT=$(sha256sum "$DATA/big.bin" | cut -d' ' -f1) ;;
        mixed) DS_LABEL="mixed"; DS_REMOTE=mixed; DS_DEST=$WORK/recv/mixed; DS_BYTES=$(tree_bytes "$DATA/mixed")
              DS_WANT=$(tree_digest "$DATA/mixed") ;;
    esac
}
received_digest() { if [[ -d $DS_DEST ]]; then tree_digest "$DS_DEST"; elif [[ -f $DS_DEST ]]; then sha256sum "$DS_DEST" | cut -d' ' -f1; fi; }

# --- FSP processes ----------------------------------------------------------------------------------
# Build once through the launchers, then run the server and relays from the jars directly: a source edited during
# a run must not make a launcher rebuild them. The client is bin/fsp, as a user types it (the launcher's JVM options
# and class-data archive included); a run in which that launcher built or made its archive is repeated.
"$ROOT/bin/fsp-server" --version >/dev/null
"$ROOT/bin/fsp-relay" --version >/dev/null
"$ROOT/bin/fsp" --version >/dev/null
jar() { echo "$ROOT/$1/target/$1-0.1.0-SNAPSHOT.jar:$ROOT/$1/target/lib/*"; }
FSP_SERVER=(java -cp "$(jar fsp-server)" io.fsp.server.ServerCommand)
FSP_RELAY=(java -cp "$(jar fsp-relay)" io.fsp.relay.RelayCommand)
FSP_CLIENT=("$ROOT/bin/fsp")

SRV_STATE=$WORK/srv-state
mkdir -p "$SRV_STATE"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=fsp-server -days 2 \
    -keyout "$SRV_STATE/key.pem" -out "$SRV_STATE/cert.pem" 2>/dev/null
SRV_FP=$(openssl x509 -in "$SRV_STATE/cert.pem" -noout -fingerprint -sha256 | cut -d= -f2)
PASSWORD=$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')

# start CMD... in NS in its own process group; wait until LOG shows PATTERN (or, for tcp:PORT, until the
# port accepts connections)
spawn() {
    local ns=$1 logf=$2 pattern=$3; shift 3
    setsid ip netns exec "$ns" "$@" >"$logf" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 1 300); do
        if [[ $pattern == tcp:* ]]; then
            ip netns exec tb-cli bash -c "exec 3<>/dev/tcp/10.77.0.2/${pattern#tcp:}" 2>/dev/null && return 0
        else
            grep -q "$pattern" "$logf" 2>/dev/null && return 0
        fi
        kill -0 "${PIDS[-1]}" 2>/dev/null || break
        sleep 0.2
    done
    log "$* did not start:"; tail -20 "$logf" >&2; exit 1
}

declare -A RELAY_SPEC
for i in 1 2 3 4; do
    mkdir -p "$WORK/r$i"
    spawn "tb-r$i" "$WORK/r$i.log" "listening on" "${FSP_RELAY[@]}" --listen "10.77.0.1$i:7000" \
        --store "$WORK/r$i/store" --state-dir "$WORK/r$i/state" --quota 4G --memory 512M --trust-server "$SRV_FP"
    RELAY_SPEC[$i]="10.77.0.1$i:7000=$(grep -o 'certificate sha256 [0-9A-Fa-f:]*' "$WORK/r$i.log" | cut -d' ' -f3)"
done

SERVER_PID=""
start_server() { # relay numbers...
    stop_server
    local args=(--listen 10.77.0.2:2121 --root "$DATA" --user "bench:$PASSWORD" --state-dir "$SRV_STATE"
        --certificate "$SRV_STATE/cert.pem" --private-key "$SRV_STATE/key.pem" --allow-plain-login
        --retain-user bench=1h) # the evacuation runs retain for an hour
    for i in "$@"; do args+=(--relay "${RELAY_SPEC[$i]}"); done
    : > "$WORK/server.log"
    spawn tb-srv "$WORK/server.log" "listening on" "${FSP_SERVER[@]}" "${args[@]}"
    SERVER_PID=${PIDS[-1]}
}
stop_server() {
    if [[ -n $SERVER_PID ]]; then
        kill -- "-$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=""
    fi
}

# cross traffic: one bulk TCP stream to relay 4 for as long as a scenario runs
CROSS_PID=""
cross_on() {
    spawn tb-r4 "$WORK/sink.log" "ready" python3 -c '
import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("10.77.0.14",9000)); s.listen(1)
print("ready", flush=True)
c,_=s.accept()
while c.recv(1<<16): pass'
    spawn tb-x "$WORK/source.log" "sending" python3 -c '
import socket
c=socket.create_connection(("10.77.0.14",9000)); print("sending", flush=True)
b=b"x"*(1<<16)
while True: c.sendall(b)'
    CROSS_PID="${PIDS[-2]} ${PIDS[-1]}"
}
cross_off() {
    for p in $CROSS_PID; do kill -- "-$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    CROSS_PID=""
}

RESULTS=$OUT/results.tsv
# process_s: wall time of the whole client process (fsp get, globus-url-copy, curl, lftp), timed here around it, the
# same clock for every row; striped_s and fsp_clock_s: fsp get's own JSON summary (striped_seconds: FRET until the
# server's 226; seconds: connect to end, without JVM start and exit), -1 for the peers
printf 'scenario\trun\tbytes\tstriped_s\tprocess_s\tlinks\tidentical\tdata\tfsp_clock_s\n' > "$RESULTS"

# one fsp get in the client namespace; appends a result line
fsp_get() { # scenario run links extra-options...
    local name=$1 run=$2 links=$3; shift 3
    [[ -z $ONLY || $name =~ $ONLY ]] || return 0
    rm -rf "$DS_DEST"
    local json t0 t1 attempt
    for attempt in 1 2; do
        rm -rf "$DS_DEST"
        # timed like the peers: the wall time of the whole process (JVM start, login and exit included)
        t0=$(date +%s.%N)
        FSP_PASSWORD=$PASSWORD ip netns exec tb-cli "${FSP_CLIENT[@]}" get "fsp://bench@10.77.0.2:2121/$DS_REMOTE" \
            -o "$DS_DEST" --trust "$SRV_FP" --json $GET_OPTS "$@" >"$WORK/get.out" 2>"$WORK/get.err" || {
            log "$name ($DS_LABEL) run $run: fsp get failed:"; tail -20 "$WORK/get.err" >&2; cat "$WORK/server.log" | tail -20 >&2; exit 1; }
        t1=$(date +%s.%N)
        grep -q '^fsp: \(building\|making a class-data archive\)' "$WORK/get.err" || break
        log "$name ($DS_LABEL) run $run: the launcher built fsp-cli or made its class-data archive during the run; repeating it"
    done
    json=$(tail -1 "$WORK/get.out")
    local ident=no total striped clock
    [[ $(received_digest) == "$DS_WANT" ]] && ident=yes
    total=$(echo "$t1 - $t0" | bc -l)
    clock=$(sed -n 's/.*"seconds":\([0-9.]*\).*/\1/p' <<<"$json")
    striped=$(sed -n 's/.*"striped_seconds":\([-0-9.]*\).*/\1/p' <<<"$json")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$run" "$DS_BYTES" "$striped" "$total" "$links" "$ident" "$DS_LABEL" \
        "${clock:--1}" >> "$RESULTS"
    log "$name ($DS_LABEL) run $run: process ${total}s (fsp get's own clock ${clock}s, striped ${striped}s) identical=$ident $(sed -n 's/.*"blocks_by_source":\({[^}]*}\).*/\1/p' <<<"$json")"
    [[ $ident == yes ]] || { log "$name: received data differs from the original"; exit 3; }
}

# evacuate from the origin's own namespace, stop the origin, collect at the safe site; appends a result line whose
# send is the evacuate process and whose total is evacuate + collect, both timed whole from here
evacuate_collect() { # scenario run replicas relays...
    local name=$1 run=$2 replicas=$3; shift 3
    [[ -z $ONLY || $name =~ $ONLY ]] || return 0
    start_server "$@"
    local sealed=$WORK/carry/evacuation.sealed bag=$WORK/recv/bag t0 t1 t2
    rm -rf "$WORK/carry" "$bag"; mkdir -p "$WORK/carry"
    [[ -f $WORK/keys/identity ]] || "${FSP_CLIENT[@]}" keygen -o "$WORK/keys" >/dev/null
    "${FSP_CLIENT[@]}" --version >/dev/null # a launcher that must build (sources changed meanwhile) does so now, untimed
    t0=$(date +%s.%N)
    FSP_PASSWORD=$PASSWORD ip netns exec tb-srv "${FSP_CLIENT[@]}" evacuate "fsp://bench@10.77.0.2:2121/$DS_REMOTE" \
        --manifest "$sealed" --recipient "$WORK/keys/recipient.pub" --trust "$SRV_FP" --replicas "$replicas" --retain 1h \
        $GET_OPTS >"$WORK/evacuate.out" 2>&1 || {
        log "$name ($DS_LABEL) run $run: fsp evacuate failed:"; tail -20 "$WORK/evacuate.out" >&2; tail -20 "$WORK/server.log" >&2; exit 1; }
    t1=$(date +%s.%N)
    stop_server # the origin is lost
    ip netns exec tb-cli "${FSP_CLIENT[@]}" collect "$sealed" -o "$bag" --identity "$WORK/keys/identity" \
        --trust-origin "$SRV_FP" >"$WORK/collect.out" 2>&1 || {
        log "$name ($DS_LABEL) run $run: fsp collect failed:"; tail -20 "$WORK/collect.out" >&2; exit 1; }
    t2=$(date +%s.%N)
    local got ident=no send total
    if [[ $DS == file ]]; then got=$(sha256sum "$bag/data/$DS_REMOTE" | cut -d' ' -f1); else got=$(tree_digest "$bag/data"); fi
    [[ $got == "$DS_WANT" ]] && ident=yes
    send=$(echo "$t1 - $t0" | bc -l); total=$(echo "$t2 - $t0" | bc -l)
    if grep -q '^fsp: \(building\|making a class-data archive\)' "$WORK/evacuate.out" "$WORK/collect.out"; then
        log "$name ($DS_LABEL) run $run: the launcher built or made its class-data archive during the run (its time includes that)"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t-1\n' "$name" "$run" "$DS_BYTES" "$send" "$total" "$#" "$ident" "$DS_LABEL" >> "$RESULTS"
    log "$name ($DS_LABEL) run $run: evacuate ${send}s, evacuate + collect ${total}s identical=$ident"
    [[ $ident == yes ]] || { log "$name: collected data differs from the original"; exit 3; }
}

# one peer transfer (direct path only): time of the whole command
peer() { # scenario run command...
    local name=$1 run=$2; shift 2
    [[ -z $ONLY || $name =~ $ONLY ]] || return 0
    rm -rf "$DS_DEST"
    local t0 t1
    t0=$(date +%s.%N)
    ip netns exec tb-cli "$@" >"$WORK/peer.log" 2>&1 || { log "$name ($DS_LABEL) failed:"; tail -20 "$WORK/peer.log" >&2; exit 1; }
    t1=$(date +%s.%N)
    local ident=no
    [[ $(received_digest) == "$DS_WANT" ]] && ident=yes
    local t; t=$(echo "$t1 - $t0" | bc -l)
    printf '%s\t%s\t%s\t-1\t%s\t1\t%s\t%s\t-1\n' "$name" "$run" "$DS_BYTES" "$t" "$ident" "$DS_LABEL" >> "$RESULTS"
    log "$name ($DS_LABEL) run $run: ${t}s identical=$ident"
    [[ $ident == yes ]] || exit 3
}

# the peers over the direct path, on the current data set
peers() { # run
    local run=$1 gurls=(ftp://10.77.0.2:2811$DATA/$DS_REMOTE "file://$DS_DEST")
    if [[ $DS == mixed ]]; then
        # one URL pair per file: globus-url-copy -r cannot -verify-checksum ("checksum read callback failed: Is a directory")
        (cd "$DATA/mixed" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) | while read -r f; do
            echo "ftp://10.77.0.2:2811$DATA/mixed/$f file://$DS_DEST/$f"
        done > "$WORK/gridftp-urls"
        gurls=(-cd -fast -f "$WORK/gridftp-urls")
    fi
    peer "GridFTP -p 1" "$run" globus-url-copy -p 1 "${gurls[@]}"
    peer "GridFTP -p 1 -verify-checksum" "$run" globus-url-copy -p 1 -verify-checksum "${gurls[@]}"
    peer "GridFTP -p 4" "$run" globus-url-copy -p 4 "${gurls[@]}"
    peer "GridFTP -p 4 -verify-checksum" "$run" globus-url-copy -p 4 -verify-checksum "${gurls[@]}"
    if [[ $DS == file ]]; then
        peer "vsftpd + curl" "$run" curl -sS -o "$DS_DEST" ftp://10.77.0.2:2100/big.bin
    else
        peer "vsftpd + lftp mirror" "$run" lftp -c "set net:max-retries 1; open ftp://10.77.0.2:2100; mirror mixed $DS_DEST"
    fi
}

if [[ $QUICK == 1 ]]; then
    use_data file
    start_server 1 2
    fsp_get "relays 1-2 + direct + overlap" 1 3 --include-direct
    stop_server
    log "quick: byte-identical"
    exit 0
fi

# peers, started once
if [[ $PEERS == 1 ]]; then
    if ! command -v globus-gridftp-server >/dev/null || ! command -v globus-url-copy >/dev/null || ! command -v vsftpd >/dev/null; then
        log "installing GridFTP and vsftpd (apt-get)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q globus-gridftp-server-progs globus-gass-copy-progs vsftpd curl >/dev/null
    fi
    : > "$WORK/empty.conf"
    spawn tb-srv "$WORK/gridftp.log" tcp:2811 globus-gridftp-server -c "$WORK/empty.conf" -aa -anonymous-user nobody \
        -control-interface 10.77.0.2 -data-interface 10.77.0.2 -p 2811 -d ERROR,WARN
    mkdir -p "$WORK/vsftpd-empty"
    cat > "$WORK/vsftpd.conf" <<CONF
listen=YES
listen_address=10.77.0.2
listen_port=2100
background=NO
anonymous_enable=YES
anon_root=$DATA
no_anon_password=YES
local_enable=NO
write_enable=NO
pasv_enable=YES
pasv_address=10.77.0.2
pasv_min_port=50200
pasv_max_port=50299
secure_chroot_dir=$WORK/vsftpd-empty
seccomp_sandbox=NO
use_sendfile=YES
CONF
    chmod 755 "$WORK"; chmod -R a+rX "$DATA"
    spawn tb-srv "$WORK/vsftpd.log" tcp:2100 /usr/sbin/vsftpd "$WORK/vsftpd.conf"
    sleep 1
fi

# Scenarios of Figures 5 and 6 on each data set, the runs of each interleaved with the others (A B C A B C ...).
for run in $(seq 1 "$RUNS"); do
  for ds in "${DATASETS[@]}"; do
    use_data "$ds"
    start_server
    fsp_get "direct" "$run" 1 --include-direct
    start_server 1 2 3
    fsp_get "relays 1-3" "$run" 3 --no-overlap
    fsp_get "relays 1-3 + direct" "$run" 3 --include-direct --no-overlap
    fsp_get "relays 1-3 + direct + overlap" "$run" 3 --include-direct
    start_server 1 2
    fsp_get "relays 1-2 + direct" "$run" 3 --include-direct --no-overlap
    fsp_get "relays 1-2 + direct + overlap" "$run" 3 --include-direct
    start_server 1 2 3 4
    cross_on
    fsp_get "relays 1-4 + cross traffic" "$run" 4 --no-overlap
    fsp_get "relays 1-4 + direct + cross traffic" "$run" 4 --include-direct --no-overlap
    start_server 1 2 4
    fsp_get "relays 1,2,4 + direct + cross traffic" "$run" 4 --include-direct --no-overlap
    cross_off
    stop_server
    if [[ $EVACUATION == 1 ]]; then
        evacuate_collect "evacuate to relays 1,2,4, then collect" "$run" 1 1 2 4
        evacuate_collect "evacuate to relays 1,2,4 (2 replicas), then collect" "$run" 2 1 2 4
    fi
    if [[ $PEERS == 1 ]]; then peers "$run"; fi
  done
done

log "results: $RESULTS"
"$ROOT/integration-tests/testbed/report.sh" "$RESULTS" "$RATE" "$OUT"
