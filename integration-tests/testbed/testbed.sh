#!/usr/bin/env bash
# The FSP paper's testbed (004 §4, Figure 4) rebuilt with network namespaces on this machine, and the
# transfers of its Figures 5 and 6 run on it, with GridFTP and vsftpd + curl over the direct path beside them.
#
#   bin/bench-testbed [--quick] [--targets] [--rate-mbit 10] [--runs 3] [--size-mb 16 | --sizes "64MiB 30MB"]
#                     [--out DIR] [--no-peers] [--evacuation] [--data file|mixed|both (default both)]
#                     [--only REGEX (scenarios to run)] [--agent cold,warm (default; also in-process)]
#                     [--get-options "OPTIONS for every fsp get" (default: --block-size 256K)]
#
# --targets: what the performance targets of the paper's testbed are judged on (issue 42: striping >= 97 % of the
# links, total >= 0.98x a direct FTPS transfer, warm): one file of 64 MiB and one of 30 MB, the scenarios direct,
# relays 1-3 and relays 1-2 + direct + overlap, and curl FTPS from fsp-server beside them; 1 run (about 15 minutes;
# --runs, --only, --sizes still apply). --sizes: sizes in MiB (64MiB, or a bare 64) or MB (30MB = 30,000,000 bytes).
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
# Every FSP row (fsp get; evacuate + collect) is run once per agent mode (--agent), as bench-peers does it
# (benchlib.ClientAgent): cold (`fsp agent stop` first: the command starts the resident client agent and pays for
# it), warm (the agent already running, started once with `fsp agent start`), in-process (FSP_AGENT=off). The
# clients run in a long-lived holder process's namespaces (nsenter), so that a warm agent is found by the next
# command (an agent is keyed by network and mount namespace; every `ip netns exec` makes a new mount namespace).
# Per run also CPU seconds: the client process, the agent (its own role, cgroup; for a cold run the agent the
# command started) and the whole machine (every core's busy time), and the agent's peak RSS.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RATE=10
RUNS=3
SIZES=(16)
QUICK=0
TARGETS=0
RATE_SET=0
SET=" " # the options given, which --targets does not override
ONLY=""
MODES=(cold warm)
GET_OPTS="--block-size 256K"
PEERS=1
EVACUATION=0
OUT=""
DATASETS=(file mixed)
while [[ $# -gt 0 ]]; do
    SET+="$1 "
    case "$1" in
        --quick) QUICK=1 ;;
        --targets) TARGETS=1 ;;
        --rate-mbit) RATE=$2; RATE_SET=1; shift ;;
        --runs) RUNS=$2; shift ;;
        --size-mb) SIZES=("$2"); shift ;;
        --sizes) read -r -a SIZES <<<"$2"; shift ;;
        --out) OUT=$2; shift ;;
        --no-peers) PEERS=0 ;;
        --evacuation) EVACUATION=1 ;;
        --only) ONLY=$2; shift ;;
        --agent) IFS=, read -r -a MODES <<<"$2"; shift
                 for m in "${MODES[@]}"; do [[ $m =~ ^(cold|warm|in-process)$ ]] || {
                     echo "testbed: --agent $m (expected: cold, warm, in-process, comma-separated)" >&2; exit 2; }; done ;;
        --data) case "$2" in file|mixed) DATASETS=("$2") ;; both) DATASETS=(file mixed) ;;
                    *) echo "testbed: --data $2 (expected: file, mixed or both)" >&2; exit 2 ;; esac; shift ;;
        --get-options) GET_OPTS=$2; shift ;;
        -h|--help) sed -n '2,43p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "testbed: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
if [[ $QUICK == 1 ]]; then
    # quick (CI): faster links so the one small transfer takes seconds
    RUNS=1; SIZES=(4); PEERS=0; DATASETS=(file); [[ $RATE_SET == 1 ]] || RATE=40
fi
if [[ $TARGETS == 1 ]]; then
    [[ $SET == *" --runs "* ]] || RUNS=1
    [[ $SET == *" --sizes "* || $SET == *" --size-mb "* ]] || SIZES=(64MiB 30MB)
    [[ $SET == *" --data "* ]] || DATASETS=(file)
    [[ $SET == *" --only "* ]] || ONLY='^(direct|relays 1-3|relays 1-2 \+ direct \+ overlap|fsp-server \+ curl FTPS)$'
fi
# a size in bytes: N or NMiB (MiB), NMB (1,000,000 bytes)
size_bytes() {
    case "$1" in
        *MiB) echo $(( ${1%MiB} * 1048576 )) ;;
        *MB) echo $(( ${1%MB} * 1000000 )) ;;
        *) echo $(( $1 * 1048576 )) ;;
    esac
}
for s in "${SIZES[@]}"; do
    [[ $s =~ ^[1-9][0-9]*(MiB|MB)?$ ]] || { echo "testbed: size $s (expected e.g. 16, 64MiB or 30MB)" >&2; exit 2; }
done
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
CL_PID=""

teardown() {
    local rc=$?
    if [[ -n $CL_PID ]] && kill -0 "$CL_PID" 2>/dev/null; then # it stops every agent and removes its cgroups
        (printf 'end\n' >&"$CL_IN") 2>/dev/null || true # a subshell: a runner already gone does not SIGPIPE this one
        for _ in $(seq 1 150); do kill -0 "$CL_PID" 2>/dev/null || break; sleep 0.1; done
        kill "$CL_PID" 2>/dev/null || true
    fi
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

# the mixed data set: sizes that are not multiples of the block size, many small files, empty ones
make_mixed() { # DIR BYTES
    local d=$1 kib=$(( $2 / 1024 )) i
    mkdir -p "$d/large" "$d/medium/a" "$d/small/b/c"
    head -c $(( kib / 2 * 1024 )) /dev/urandom > "$d/large/half.bin"
    for i in 1 2 3 4; do head -c $(( kib / 16 * 1024 + i * 1000 + 7 )) /dev/urandom > "$d/medium/a/part-$i.dat"; done
    for i in $(seq 1 64); do head -c $(( kib / 256 * 1024 - i * 13 )) /dev/urandom > "$d/small/b/c/f$i.bin"; done
    for i in $(seq 1 16); do head -c $(( i * 211 )) /dev/urandom > "$d/small/tiny-$i"; done
    : > "$d/small/empty-1"
    : > "$d/empty-2"
}
# per size: big.bin and mixed/ (one size), or big-SIZE.bin and mixed-SIZE/ (several)
size_suffix() { (( ${#SIZES[@]} == 1 )) || echo "-$1"; }
for s in "${SIZES[@]}"; do
    head -c "$(size_bytes "$s")" /dev/urandom > "$DATA/big$(size_suffix "$s").bin"
    make_mixed "$DATA/mixed$(size_suffix "$s")" "$(size_bytes "$s")"
done

# names and contents of every file under DIR, as one digest
tree_digest() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1; }
tree_bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }'; }

# the data set the next transfers move: what is fetched, where it lands, how many bytes, its digest; with several
# sizes the label says which ("one file, 64MiB")
use_data() { # file|mixed SIZE
    DS=$1
    local suffix tag=""; suffix=$(size_suffix "$2")
    [[ -z $suffix ]] || tag=", $2"
    case "$DS" in
        file) DS_LABEL="one file$tag"; DS_REMOTE=big$suffix.bin; DS_DEST=$WORK/recv/big.bin
              DS_BYTES=$(stat -c %s "$DATA/$DS_REMOTE"); DS_WANT=$(sha256sum "$DATA/$DS_REMOTE" | cut -d' ' -f1) ;;
        mixed) DS_LABEL="mixed$tag"; DS_REMOTE=mixed$suffix; DS_DEST=$WORK/recv/mixed
              DS_BYTES=$(tree_bytes "$DATA/$DS_REMOTE"); DS_WANT=$(tree_digest "$DATA/$DS_REMOTE") ;;
    esac
}
received_digest() { if [[ -d $DS_DEST ]]; then tree_digest "$DS_DEST"; elif [[ -f $DS_DEST ]]; then sha256sum "$DS_DEST" | cut -d' ' -f1; fi; }

# --- FSP processes ----------------------------------------------------------------------------------
# Build once through the launchers, then run the server and relays from the jars directly: a source edited during
# a run must not make a launcher rebuild them. The client is bin/fsp, as a user types it (the launcher's JVM options
# and class-data archive included); a run in which that launcher built or made its archive is repeated.
"$ROOT/bin/fsp-server" --version >/dev/null
"$ROOT/bin/fsp-relay" --version >/dev/null
FSP_AGENT=off "$ROOT/bin/fsp" --version >/dev/null # untimed commands run in process: no agent left behind
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

# --- clients ----------------------------------------------------------------------------------------
# One long-lived holder process per namespace the clients run in; every client enters its network and mount
# namespaces (nsenter), so the agent a command starts there is the one the next command finds.
declare -A HOLDER
hold() { # NS
    ip netns exec "$1" sleep infinity &
    PIDS+=($!)
    HOLDER[$1]=$!
    # ip netns exec unshares the mount namespace, then execs: until it has, its namespaces are still ours
    for _ in $(seq 1 100); do [[ $(cat "/proc/${HOLDER[$1]}/comm" 2>/dev/null) == sleep ]] && return 0; sleep 0.05; done
    log "the holder of $1 did not start"; exit 1
}
hold tb-cli
[[ $EVACUATION == 0 ]] || hold tb-srv # fsp evacuate runs at the origin
# the coprocess that starts and times every client and prepares the agent for each (clients.py)
holders=(); for ns in "${!HOLDER[@]}"; do holders+=("$ns=${HOLDER[$ns]}"); done
mkdir -p "$WORK/clients"
coproc CLIENTS { FSP_PASSWORD=$PASSWORD exec python3 "$ROOT/integration-tests/testbed/clients.py" "$WORK/clients" \
    "$(IFS=,; echo "${MODES[*]}")" "${holders[@]}"; }
# copies of its descriptors: bash closes a coprocess's own in subshells, and teardown writes from one
CL_PID=$CLIENTS_PID
exec {CL_IN}>&"${CLIENTS[1]}" {CL_OUT}<&"${CLIENTS[0]}"
read -r -a MODES <&"$CL_OUT" || { log "the client runner did not start"; exit 1; }
(( ${#MODES[@]} > 0 )) || { log "none of the agent modes asked for can run with this build"; exit 2; }
log "FSP commands run ${MODES[*]}"

# client NS MODE OUT ERR COMMAND...: runs COMMAND in NS's namespaces, timed, as the agent MODE asks (- for a peer);
# sets RC, WALL (s), CCPU (client CPU s), ACPU (the agent's CPU s), ARSS (its peak RSS MiB), MCPU (machine CPU s)
client() {
    local IFS=$'\t'
    printf 'run\t%s\n' "$*" >&"$CL_IN"
    read -r RC WALL CCPU ACPU ARSS MCPU <&"$CL_OUT" || { log "the client runner ended"; exit 1; }
}
# a + b of two figures that may be "-"
plus() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.3f", a + b }'; }

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
# process_s: wall time of the whole client process (fsp get, globus-url-copy, curl, lftp), timed by clients.py around
# it, the same clock for every row; striped_s and fsp_clock_s: fsp get's own JSON summary (striped_seconds: FRET until
# the server's 226; seconds: connect to end, without JVM start and exit), -1 for the peers; agent: how the FSP command
# met the client agent (cold, warm, in-process; - for the peers); client_cpu_s: the client process; agent_cpu_s and
# agent_rss_mib: the agent it used (- in process and for the peers); machine_cpu_s: every core's busy time
printf 'scenario\trun\tbytes\tstriped_s\tprocess_s\tlinks\tidentical\tdata\tfsp_clock_s\tagent\tclient_cpu_s\tagent_cpu_s\tagent_rss_mib\tmachine_cpu_s\n' > "$RESULTS"

result() { # scenario run striped_s process_s links identical fsp_clock_s agent (CPU figures from the last client())
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$DS_BYTES" "$3" "$4" "$5" "$6" \
        "$DS_LABEL" "$7" "$8" "$CCPU" "$ACPU" "$ARSS" "$MCPU" >> "$RESULTS"
}
cpu_note() { echo "client CPU ${CCPU}s, agent CPU ${ACPU}s (peak RSS ${ARSS} MiB), machine CPU ${MCPU}s"; }

# fsp get in the client namespace, once per agent mode; appends a result line for each
fsp_get() { # scenario run links extra-options...
    local name=$1 run=$2 links=$3; shift 3
    [[ -z $ONLY || $name =~ $ONLY ]] || return 0
    local mode json attempt ident striped clock
    for mode in "${MODES[@]}"; do
        for attempt in 1 2; do
            rm -rf "$DS_DEST"
            # timed like the peers: the wall time of the whole process (launcher, JVM or agent, login and exit included)
            client tb-cli "$mode" "$WORK/get.out" "$WORK/get.err" "${FSP_CLIENT[@]}" get \
                "fsp://bench@10.77.0.2:2121/$DS_REMOTE" -o "$DS_DEST" --trust "$SRV_FP" --json $GET_OPTS "$@"
            [[ $RC == 0 ]] || { log "$name ($DS_LABEL, $mode) run $run: fsp get exited $RC:"; tail -20 "$WORK/get.err" >&2
                tail -20 "$WORK/server.log" >&2; exit 1; }
            grep -q '^fsp: \(building\|making a class-data archive\)' "$WORK/get.err" || break
            log "$name ($DS_LABEL, $mode) run $run: the launcher built fsp-cli or made its class-data archive during the run; repeating it"
        done
        json=$(tail -1 "$WORK/get.out")
        ident=no
        [[ $(received_digest) == "$DS_WANT" ]] && ident=yes
        clock=$(sed -n 's/.*"seconds":\([0-9.]*\).*/\1/p' <<<"$json")
        striped=$(sed -n 's/.*"striped_seconds":\([-0-9.]*\).*/\1/p' <<<"$json")
        result "$name" "$run" "$striped" "$WALL" "$links" "$ident" "${clock:--1}" "$mode"
        log "$name ($DS_LABEL, $mode) run $run: process ${WALL}s (fsp get's own clock ${clock}s, striped ${striped}s) identical=$ident; $(cpu_note) $(sed -n 's/.*"blocks_by_source":\({[^}]*}\).*/\1/p' <<<"$json")"
        [[ $ident == yes ]] || { log "$name: received data differs from the original"; exit 3; }
    done
}

# evacuate from the origin's own namespace, stop the origin, collect at the safe site, once per agent mode; appends a
# result line whose send is the evacuate process and whose total is evacuate + collect, both timed whole
evacuate_collect() { # scenario run replicas relays...
    local name=$1 run=$2 replicas=$3; shift 3
    [[ -z $ONLY || $name =~ $ONLY ]] || return 0
    local mode sealed=$WORK/carry/evacuation.sealed bag=$WORK/recv/bag send ccpu acpu arss mcpu got ident total
    [[ -f $WORK/keys/identity ]] || FSP_AGENT=off "${FSP_CLIENT[@]}" keygen -o "$WORK/keys" >/dev/null
    for mode in "${MODES[@]}"; do
        start_server "$@"
        rm -rf "$WORK/carry" "$bag"; mkdir -p "$WORK/carry"
        FSP_AGENT=off "${FSP_CLIENT[@]}" --version >/dev/null # a launcher that must build (sources changed meanwhile) does so now, untimed
        client tb-srv "$mode" "$WORK/evacuate.out" "$WORK/evacuate.out" "${FSP_CLIENT[@]}" evacuate \
            "fsp://bench@10.77.0.2:2121/$DS_REMOTE" --manifest "$sealed" --recipient "$WORK/keys/recipient.pub" \
            --trust "$SRV_FP" --replicas "$replicas" --retain 1h $GET_OPTS
        [[ $RC == 0 ]] || { log "$name ($DS_LABEL, $mode) run $run: fsp evacuate exited $RC:"; tail -20 "$WORK/evacuate.out" >&2
            tail -20 "$WORK/server.log" >&2; exit 1; }
        send=$WALL ccpu=$CCPU acpu=$ACPU arss=$ARSS mcpu=$MCPU
        stop_server # the origin is lost
        client tb-cli "$mode" "$WORK/collect.out" "$WORK/collect.out" "${FSP_CLIENT[@]}" collect "$sealed" -o "$bag" \
            --identity "$WORK/keys/identity" --trust-origin "$SRV_FP"
        [[ $RC == 0 ]] || { log "$name ($DS_LABEL, $mode) run $run: fsp collect exited $RC:"; tail -20 "$WORK/collect.out" >&2; exit 1; }
        total=$(plus "$send" "$WALL") CCPU=$(plus "$ccpu" "$CCPU") ACPU=$(plus "$acpu" "$ACPU") MCPU=$(plus "$mcpu" "$MCPU")
        [[ $arss == - || ( $ARSS != - && ${ARSS%.*} -ge ${arss%.*} ) ]] || ARSS=$arss # the larger peak
        if [[ $DS == file ]]; then got=$(sha256sum "$bag/data/$DS_REMOTE" | cut -d' ' -f1); else got=$(tree_digest "$bag/data"); fi
        ident=no
        [[ $got == "$DS_WANT" ]] && ident=yes
        if grep -q '^fsp: \(building\|making a class-data archive\)' "$WORK/evacuate.out" "$WORK/collect.out"; then
            log "$name ($DS_LABEL, $mode) run $run: the launcher built or made its class-data archive during the run (its time includes that)"
        fi
        result "$name" "$run" "$send" "$total" "$#" "$ident" -1 "$mode"
        log "$name ($DS_LABEL, $mode) run $run: evacuate ${send}s, evacuate + collect ${total}s identical=$ident; $(cpu_note)"
        [[ $ident == yes ]] || { log "$name: collected data differs from the original"; exit 3; }
    done
}

# one peer transfer (direct path only): time of the whole command
peer() { # scenario run command...
    local name=$1 run=$2; shift 2
    [[ -z $ONLY || $name =~ $ONLY ]] || return 0
    rm -rf "$DS_DEST"
    client tb-cli - "$WORK/peer.log" "$WORK/peer.log" "$@"
    [[ $RC == 0 ]] || { log "$name ($DS_LABEL) exited $RC:"; tail -20 "$WORK/peer.log" >&2; exit 1; }
    local ident=no
    [[ $(received_digest) == "$DS_WANT" ]] && ident=yes
    result "$name" "$run" -1 "$WALL" 1 "$ident" -1 -
    log "$name ($DS_LABEL) run $run: ${WALL}s identical=$ident; client CPU ${CCPU}s, machine CPU ${MCPU}s"
    [[ $ident == yes ]] || exit 3
}

# the peers over the direct path, on the current data set
peers() { # run
    local run=$1 gurls=(ftp://10.77.0.2:2811$DATA/$DS_REMOTE "file://$DS_DEST")
    if [[ $DS == mixed ]]; then
        # one URL pair per file: globus-url-copy -r cannot -verify-checksum ("checksum read callback failed: Is a directory")
        (cd "$DATA/$DS_REMOTE" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) | while read -r f; do
            echo "ftp://10.77.0.2:2811$DATA/$DS_REMOTE/$f file://$DS_DEST/$f"
        done > "$WORK/gridftp-urls"
        gurls=(-cd -fast -f "$WORK/gridftp-urls")
    fi
    peer "GridFTP -p 1" "$run" globus-url-copy -p 1 "${gurls[@]}"
    peer "GridFTP -p 1 -verify-checksum" "$run" globus-url-copy -p 1 -verify-checksum "${gurls[@]}"
    peer "GridFTP -p 4" "$run" globus-url-copy -p 4 "${gurls[@]}"
    peer "GridFTP -p 4 -verify-checksum" "$run" globus-url-copy -p 4 -verify-checksum "${gurls[@]}"
    if [[ $DS == file ]]; then
        peer "vsftpd + curl" "$run" curl -sS -o "$DS_DEST" "ftp://10.77.0.2:2100/$DS_REMOTE"
        # a direct FTPS transfer from fsp-server itself (explicit TLS for login and data), by a client without the agent
        if [[ -z $ONLY || "fsp-server + curl FTPS" =~ $ONLY ]]; then
            start_server
            peer "fsp-server + curl FTPS" "$run" curl -sS --ssl-reqd -k -u "bench:$PASSWORD" -o "$DS_DEST" \
                "ftp://10.77.0.2:2121/$DS_REMOTE"
            stop_server
        fi
    else
        peer "vsftpd + lftp mirror" "$run" lftp -c "set net:max-retries 1; open ftp://10.77.0.2:2100; mirror $DS_REMOTE $DS_DEST"
    fi
}

if [[ $QUICK == 1 ]]; then
    use_data file "${SIZES[0]}"
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

# whether any of the scenarios named is to run (--only)
wanted() { local n; for n in "$@"; do [[ -z $ONLY || $n =~ $ONLY ]] && return 0; done; return 1; }

# Scenarios of Figures 5 and 6 on each data set, the runs of each interleaved with the others (A B C A B C ...). Each
# FSP scenario runs once per agent mode, in turn; the order of the modes turns with every run (a server started for
# a scenario meets its first client with a cold JIT, so no mode is always that client).
ASKED=("${MODES[@]}")
for run in $(seq 1 "$RUNS"); do
  k=$(( (run - 1) % ${#ASKED[@]} ))
  MODES=("${ASKED[@]:k}" "${ASKED[@]:0:k}")
  for size in "${SIZES[@]}"; do
  for ds in "${DATASETS[@]}"; do
    use_data "$ds" "$size"
    if wanted "direct"; then
        start_server
        fsp_get "direct" "$run" 1 --include-direct
    fi
    if wanted "relays 1-3" "relays 1-3 + direct" "relays 1-3 + direct + overlap"; then
        start_server 1 2 3
        fsp_get "relays 1-3" "$run" 3 --no-overlap
        fsp_get "relays 1-3 + direct" "$run" 3 --include-direct --no-overlap
        fsp_get "relays 1-3 + direct + overlap" "$run" 3 --include-direct
    fi
    if wanted "relays 1-2 + direct" "relays 1-2 + direct + overlap"; then
        start_server 1 2
        fsp_get "relays 1-2 + direct" "$run" 3 --include-direct --no-overlap
        fsp_get "relays 1-2 + direct + overlap" "$run" 3 --include-direct
    fi
    if wanted "relays 1-4 + cross traffic" "relays 1-4 + direct + cross traffic" "relays 1,2,4 + direct + cross traffic"; then
        start_server 1 2 3 4
        cross_on
        fsp_get "relays 1-4 + cross traffic" "$run" 4 --no-overlap
        fsp_get "relays 1-4 + direct + cross traffic" "$run" 4 --include-direct --no-overlap
        start_server 1 2 4
        fsp_get "relays 1,2,4 + direct + cross traffic" "$run" 4 --include-direct --no-overlap
        cross_off
    fi
    stop_server
    if [[ $EVACUATION == 1 ]]; then
        evacuate_collect "evacuate to relays 1,2,4, then collect" "$run" 1 1 2 4
        evacuate_collect "evacuate to relays 1,2,4 (2 replicas), then collect" "$run" 2 1 2 4
    fi
    if [[ $PEERS == 1 ]]; then peers "$run"; fi
  done
  done
done

log "results: $RESULTS"
"$ROOT/integration-tests/testbed/report.sh" "$RESULTS" "$RATE" "$OUT"
