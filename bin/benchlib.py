# benchlib: what the loopback benchmarks bin/bench-peers and bin/bench-scale share. Servers started as their
# users start them (fsp-server with three fsp-relay daemons, fsp-server without relays, vsftpd, GridFTP), each in
# its own session and CPU-accounted per role in a cgroup; for bench-peers also two private sshds and
# magic-wormhole's mailbox server and transit relay (in a network namespace with only lo); peak RSS of FSP's
# daemons; the Debian packages and the Python venv the benchmarks need; the launchers built and their class-data
# archives made before anything is timed; a bar chart drawn by gnuplot. Imported by the scripts beside it
# (Python puts a script's directory on sys.path).
"""Shared pieces of the loopback benchmarks in bin/ (bench-peers, bench-scale)."""

import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "bin"
HOST = "127.0.0.1"  # loopback only: no traffic ever leaves this machine
# The name under which a run that --warm-up keeps out of the figures is logged and written to the TSV
WARM_UP = "warm-up: "
USER = "bench"
LISTENING = re.compile(r"listening on (\S+):(\d+), certificate sha256 (\S+)")
GIB = 1 << 30
MIB = 1 << 20
CLK_TCK = os.sysconf("SC_CLK_TCK")
PROG = Path(sys.argv[0]).name  # the benchmark running: its messages and its cgroups carry its name


def log(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)

def die(msg, code=1):
    log(msg)
    sys.exit(code)


def kill_until_gone(pids_now):
    """SIGKILLs every process pids_now() lists until it lists none (at most about 5 s)."""
    for _ in range(50):
        left = pids_now()
        if not left:
            return
        for pid in left:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)


def parse_size(text):
    m = re.fullmatch(r"(\d+)([KMGT]?)(i?B)?", text.strip(), re.IGNORECASE)
    if not m or int(m.group(1)) == 0:
        die(f"--size {text}: not a size (expected e.g. 64M, 512M, 1G)", 2)
    return int(m.group(1)) << (10 * " KMGT".index(m.group(2).upper() or " "))


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def tail(path, lines=15):
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


# ---- processes --------------------------------------------------------------------------------------------

class Daemons:
    """The long-running servers this script started; each in its own session, so Ctrl-C reaches only this
    script (which then stops them) and killing the session's group also ends the daemon's forked children."""

    def __init__(self):
        self.procs = []

    def start(self, name, argv, log_path, env=None, cwd=None):
        out = open(log_path, "wb")
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                             cwd=cwd, start_new_session=True)
        out.close()
        p.name, p.log = name, log_path
        self.procs.append(p)
        return p

    def stop(self, p, timeout=15):
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        # forked children (vsftpd sessions) may outlive their parent in the group for a moment
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if p in self.procs:
            self.procs.remove(p)

    def stop_all(self):
        for p in reversed(list(self.procs)):
            self.stop(p)


def wait_for_line(p, pattern=LISTENING, timeout=600):
    """Waits for the daemon's 'listening on HOST:PORT, certificate sha256 FP' line (the first launch builds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = pattern.search(Path(p.log).read_text(errors="replace"))
        if m:
            return m
        if p.poll() is not None:
            break
        time.sleep(0.05)
    die(f"{p.name} did not start; {p.log}:\n{tail(p.log)}")


def wait_for_port(p, port, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if p.poll() is not None:
            break
        try:
            socket.create_connection((HOST, port), 0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    die(f"{p.name} does not accept connections on {HOST}:{port}; {p.log}:\n{tail(p.log)}")


class CpuGroups:
    """CPU seconds per server role, counted by a cgroup of its own (cgroup v2 cpu.stat, or v1 cpuacct): every
    thread, and every session process a daemon forks (vsftpd's sessions exit unreaped by the listener, so
    /proc/PID/stat's cutime would miss them). Without a writable cgroup file system: /proc/PID/stat of the
    daemons (utime+stime+cutime+cstime), which misses what is not reaped by them."""

    def __init__(self):
        name = f"fsp-{PROG}-{os.getpid()}"
        if Path("/sys/fs/cgroup/cgroup.controllers").exists():
            self.root, self.usage = Path("/sys/fs/cgroup") / name, self._v2_usage
        elif Path("/sys/fs/cgroup/cpuacct/cpuacct.usage").exists():
            self.root, self.usage = Path("/sys/fs/cgroup/cpuacct") / name, self._v1_usage
        else:
            self.root = None
        try:
            if self.root:
                self.root.mkdir()
        except OSError as e:
            log(f"no cgroup for CPU accounting ({e}); reading /proc/PID/stat instead")
            self.root = None
        self.pids = {}  # role -> daemon pids (the fallback, and which processes are the daemons themselves)
        self.ever = {}  # role -> every daemon pid the role had (--profile names the profiles by them)

    @property
    def method(self):
        if self.root is None:
            return "/proc/PID/stat of the daemon (utime+stime and its reaped children's)"
        return f"a cgroup per server role ({'v2 cpu.stat' if self.usage == self._v2_usage else 'v1 cpuacct.usage'})"

    @staticmethod
    def _v2_usage(d):
        return int(re.search(r"usage_usec (\d+)", (d / "cpu.stat").read_text()).group(1)) / 1e6

    @staticmethod
    def _v1_usage(d):
        return int((d / "cpuacct.usage").read_text()) / 1e9

    def add(self, role, pid):
        self.pids.setdefault(role, []).append(pid)
        self.ever.setdefault(role, []).append(pid)
        if self.root:
            d = self.root / role
            d.mkdir(exist_ok=True)
            (d / "cgroup.procs").write_text(str(pid))

    def joining(self, role):
        """A preexec_fn that puts the child in the role's group before it execs, so that whatever it starts
        (detached or not) is counted there too; None without a cgroup file system."""
        if not self.root:
            return None
        procs = self.root / role / "cgroup.procs"
        procs.parent.mkdir(exist_ok=True)
        return lambda: procs.write_text(str(os.getpid()))

    def forget(self, role, pid):
        if pid in self.pids.get(role, []):
            self.pids[role].remove(pid)

    def seconds(self, role):
        if self.root:
            return self.usage(self.root / role)
        total = 0
        for pid in self.pids[role]:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / CLK_TCK
        return total

    def members(self, role):
        if self.root:
            return {int(x) for x in (self.root / role / "cgroup.procs").read_text().split()}
        return {int(k) for pid in self.pids[role] for t in Path(f"/proc/{pid}/task").iterdir()
                for k in (t / "children").read_text().split()} | set(self.pids[role])

    def settle(self, role, timeout=5):
        """vsftpd and GridFTP serve each session in forked processes: wait until those have exited, so that
        all their CPU is counted."""
        deadline = time.monotonic() + timeout
        while self.members(role) - set(self.pids[role]) and time.monotonic() < deadline:
            time.sleep(0.01)

    def remove(self):
        """After the daemons were stopped: end what is left in the groups (only processes this script started
        and their children), then remove the groups."""
        if not self.root:
            return
        for d in self.root.iterdir():
            if d.is_dir():
                kill_until_gone(lambda: (d / "cgroup.procs").read_text().split())
                d.rmdir()
        self.root.rmdir()


def java_pid(p):
    """The launchers exec java: the PID started is the JVM's once the daemon listens."""
    comm = Path(f"/proc/{p.pid}/comm").read_text().strip()
    if comm != "java":
        die(f"{p.name}: process {p.pid} is {comm!r}, not java (did the launcher change?)")
    return p.pid



def reset_peak_rss(pid):
    """Resets the process's VmHWM to its current RSS (Linux >= 4.0, root), so the next read is this run's peak.
    False when the process is gone or the kernel refuses."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def peak_rss_mib(pid):
    """The process's peak resident set (VmHWM) in MiB, or None when it is gone."""
    try:
        m = re.search(r"^VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
    except OSError:
        return None
    return int(m.group(1)) / 1024 if m else None


# ---- the client agent (issue 42) --------------------------------------------------------------------------

AGENT_MODES = ("cold", "warm", "in-process")
# What fsp get does for the data, as the tables show every client: (verifies, encrypts, syncs). It forces what it
# wrote to disk (and its directories) before it exits.
FSP_TRAITS = ("SHA-256 of every block", "AES-GCM; TLS", "yes")
COLD_ROLE = "client-cold"  # the cgroup of a cold run's client processes and of the agent they start


class ClientAgent:
    """How an FSP command meets the resident client agent, by mode: "cold" (`fsp agent stop` before the clock:
    the command starts the agent, in the command's own cgroup, so the agent's CPU and memory count as the
    client's), "warm" (the agent started once with `fsp agent start` in a cgroup of its own, role "agent", counted
    apart like the server and the relays; started again, and said so, if it exited on its idle timeout) and
    "in-process" (FSP_AGENT=off: the command's own JVM does everything, as before the agent). The cold and the
    warm agent each have a runtime directory of their own (XDG_RUNTIME_DIR), so cold runs never stop the warm
    agent. A build whose fsp has no `agent` command runs only the in-process rows (self.missing says why).
    wrap: an argv prefix for every `fsp agent` command, e.g. nsenter into the namespaces the timed clients run in
    (the agent is keyed by network and mount namespace, so it must be started and stopped where they run)."""

    def __init__(self, setup, wrap=()):
        self.s, self.pid, self.wrap = setup, None, list(wrap)  # pid: the warm agent's
        self.env = {"in-process": dict(setup.env, FSP_AGENT="off")}
        for mode in ("cold", "warm"):
            d = setup.run / f"agent-{mode}"
            d.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.env[mode] = dict(setup.env, XDG_RUNTIME_DIR=str(d))
        r = self.command("status", "cold")
        self.missing = None if r.returncode in (0, 1) else (
            f"this build's `fsp agent status` exits {r.returncode} ({(r.stdout + r.stderr).strip().splitlines()[0]}): "
            "no client agent, so no cold and warm rows; the in-process rows are what every fsp command does")
        if self.missing:
            log(self.missing)
        self.modes = ("in-process",) if self.missing else AGENT_MODES

    def command(self, verb, mode, preexec_fn=None):
        return subprocess.run([*self.wrap, str(BIN / "fsp"), "agent", verb], env=self.env[mode], capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, preexec_fn=preexec_fn, timeout=120)

    def stop(self, mode):
        r = self.command("stop", mode)
        if r.returncode != 0:
            die(f"fsp agent stop ({mode}) exited {r.returncode}: {(r.stdout + r.stderr).strip()}")

    def start_warm(self):
        if self.pid:
            log(f"the warm fsp-agent (pid {self.pid}) has exited (its idle timeout?): starting it again")
        r = self.command("start", "warm", preexec_fn=self.s.cpu.joining("agent"))
        m = re.search(r"fsp-agent pid (\d+)", r.stdout + r.stderr)
        if r.returncode != 0 or not m:
            die(f"fsp agent start exited {r.returncode}: {(r.stdout + r.stderr).strip()}")
        self.pid = int(m.group(1))
        self.s.cpu.add("agent", self.pid)  # already in the group: this makes it the role's daemon (RSS, no cgroup)

    def stop_all(self):
        """At the end: neither agent left running (whatever the outcome)."""
        for mode in ("cold", "warm") if not self.missing else ():
            try:
                self.command("stop", mode)
            except (OSError, subprocess.SubprocessError) as e:
                log(f"fsp agent stop ({mode}): {e}")

    def alive(self, pid):
        try:
            return Path(f"/proc/{pid}/comm").read_text().strip() == "fsp-agent"
        except OSError:
            return False

    def before(self, mode):
        """Before the clock: what the mode needs (no cold agent; the warm one running, its peak RSS reset); returns
        the CPU seconds of the group after() subtracts, and the preexec_fn of the client processes."""
        if mode == "cold":
            self.stop("cold")
        elif mode == "warm":
            if not (self.pid and self.alive(self.pid)):
                self.start_warm()
            reset_peak_rss(self.pid)
        role = {"cold": COLD_ROLE, "warm": "agent"}.get(mode)
        if role is None or (mode == "cold" and not self.s.cpu.root):
            return None, None
        preexec = self.s.cpu.joining(COLD_ROLE) if mode == "cold" else None
        return self.s.cpu.seconds(role), preexec

    def after(self, mode, cpu_before):
        """After the clock: (CPU s, peak RSS MiB) of the agent the run used: for a cold run the CPU of the client
        processes and the agent they started together, for a warm run the warm agent's; (None, None) in process
        (and for a cold run without a cgroup file system, which cannot find what the client started). A cold
        agent is stopped once read."""
        if cpu_before is None:
            return None, None
        if mode == "warm":
            return self.s.cpu.seconds("agent") - cpu_before, peak_rss_mib(self.pid)
        cpu = self.s.cpu.seconds(COLD_ROLE) - cpu_before
        rss = [peak_rss_mib(pid) for pid in self.s.cpu.members(COLD_ROLE) if self.alive(pid)]
        self.stop("cold")
        return cpu, max((x for x in rss if x is not None), default=None)


def then_sync(argv):
    """The command, then sync, as one `sh -c` (a command that is one already gets `&& sync` appended): the data
    on disk when it returns, as fsp get's is."""
    return ["sh", "-c", (argv[2] if argv[:2] == ["sh", "-c"] else shlex.join(argv)) + " && sync"]


def sftp_remote(s, path):
    """rclone's on-the-fly :sftp: remote for PATH on the bench's sshd (Setup.start_sshd): its key and known_hosts."""
    d = s.ssh_config.parent
    return (f":sftp,host={HOST},port={s.ports['sshd']},user=root,key_file={d / 'id_ed25519'},"
            f"known_hosts_file={d / 'known_hosts'}:{path}")


# ---- the servers ------------------------------------------------------------------------------------------

class Setup:
    """The servers, all serving DIR/data (their state and logs in DIR/run); ports and certificate fingerprints
    by role: fsp1 (fsp-server with three relays), fsp2 (without relays), vsftpd, vsftpd-tls, gridftp."""

    def __init__(self, args, daemons):
        self.args, self.daemons, self.cpu = args, daemons, None
        self.data = args.dir / "data"
        self.run = args.dir / "run"
        self.password = secrets.token_hex(12)
        self.env = dict(os.environ, FSP_PASSWORD=self.password)
        self.ports = {}
        self.fp = {}

    def fsp_server(self, role, state, relays=()):
        argv = [str(BIN / "fsp-server"), "--listen", f"{HOST}:0", "--root", str(self.data),
                "--user", f"{USER}:{self.password}", "--state-dir", str(state)]
        if role == "fsp2":
            # the curl rows log in as vsftpd's do (anonymous, read-only); one row with a password beside them
            argv += ["--allow-plain-login", "--anonymous"]
        for r in relays:
            argv += ["--relay", r]
        p = self.daemons.start(role, argv, self.run / f"{role}.log")
        if role != "fsp1-cert":
            self.cpu.add(role, p.pid)
        m = wait_for_line(p)
        java_pid(p)
        return p, int(m.group(2)), m.group(3)

    def start_fsp1(self):
        """fsp-server with three relays: the server's certificate first (one start with a state dir), so that
        the relays can pin it; then the relays, whose fingerprints the server pins with --relay."""
        state = self.run / "fsp1-state"
        p, _, fp = self.fsp_server("fsp1-cert", state)
        self.daemons.stop(p)
        relays, specs = [], []
        for i in range(3):
            d = self.run / f"relay{i}"
            d.mkdir(parents=True, exist_ok=True)
            relays.append(self.daemons.start(f"relay{i}", [
                str(BIN / "fsp-relay"), "--listen", f"{HOST}:0", "--store", str(d / "store"),
                "--state-dir", str(d / "state"), "--quota", "8G", "--trust-server", fp], self.run / f"relay{i}.log"))
            self.cpu.add("relays", relays[-1].pid)  # the three relays' CPU is counted together
        for r in relays:  # started together, read in turn
            m = wait_for_line(r)
            specs.append(f"{m.group(1)}:{m.group(2)}={m.group(3)}")
        p, port, fp1 = self.fsp_server("fsp1", state, specs)
        self.fsp1_proc, self.relay_procs = p, relays
        if fp1 != fp:
            die(f"fsp1: certificate changed between starts ({fp} then {fp1})")
        self.ports["fsp1"], self.fp["fsp1"] = port, fp
        for r in relays:
            java_pid(r)
        log(f"fsp-server with relays on {HOST}:{port}; relays {', '.join(s.split('=')[0] for s in specs)}")

    def start_fsp2(self):
        """The relay-less fsp-server (direct-only fsp get, curl); started again before each 'first minute' RETR."""
        old = getattr(self, "fsp2_proc", None)
        if old:
            self.daemons.stop(old)
            self.cpu.forget("fsp2", old.pid)
        p, port, fp = self.fsp_server("fsp2", self.run / "fsp2-state")
        self.fsp2_proc = p
        self.ports["fsp2"], self.fp["fsp2"] = port, fp
        log(f"fsp-server without relays on {HOST}:{port}")

    def start_vsftpd(self, tls):
        role = "vsftpd-tls" if tls else "vsftpd"
        port = free_port()
        Path("/var/run/vsftpd/empty").mkdir(parents=True, exist_ok=True)
        # anonymous, read-only, sendfile; passive ports: any free one, as fsp-server's default
        conf = f"""listen=YES
listen_address={HOST}
listen_port={port}
background=NO
anonymous_enable=YES
anon_root={self.data}
no_anon_password=YES
local_enable=NO
write_enable=NO
pasv_enable=YES
pasv_address={HOST}
secure_chroot_dir=/var/run/vsftpd/empty
seccomp_sandbox=NO
use_sendfile=YES
"""
        if tls:
            cert, key = self.run / "vsftpd-cert.pem", self.run / "vsftpd-key.pem"
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                            "-out", str(cert), "-days", "2", "-subj", f"/CN={HOST}"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # explicit TLS (AUTH TLS) required for login and data, as curl --ssl-reqd asks (PROT P)
            conf += f"""ssl_enable=YES
allow_anon_ssl=YES
force_anon_logins_ssl=YES
force_anon_data_ssl=YES
require_ssl_reuse=NO
rsa_cert_file={cert}
rsa_private_key_file={key}
"""
        path = self.run / f"{role}.conf"
        path.write_text(conf)
        p = self.daemons.start(role, ["/usr/sbin/vsftpd", str(path)], self.run / f"{role}.log")
        self.cpu.add(role, p.pid)
        wait_for_port(p, port)
        self.ports[role] = port
        log(f"{role} on {HOST}:{port}")

    def start_gridftp(self):
        port = free_port()
        empty = self.run / "gridftp-empty.conf"
        empty.write_text("")
        p = self.daemons.start("gridftp", [
            "globus-gridftp-server", "-c", str(empty), "-aa", "-anonymous-user", "nobody",
            "-control-interface", HOST, "-data-interface", HOST, "-p", str(port),
            "-d", "ERROR,WARN", "-l", str(self.run / "gridftp-server.log")], self.run / "gridftp.log")
        self.cpu.add("gridftp", p.pid)
        wait_for_port(p, port)
        self.ports["gridftp"] = port
        log(f"globus-gridftp-server on {HOST}:{port}")

    def start_sshd(self, role):
        """A private OpenSSH server on 127.0.0.1:<free port>: its own host key, config file and authorized_keys
        (DIR/run/ssh), public-key login only. Roles: sshd (the server), sshd-hop (the ProxyJump hop). The
        client's files (key, known_hosts, ssh_config with StrictHostKeyChecking) are in DIR/run/ssh too."""
        d = self.run / "ssh"
        if not d.exists():
            d.mkdir(mode=0o700)
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "fsp-bench-client",
                            "-f", str(d / "id_ed25519")], check=True)
            shutil.copy(d / "id_ed25519.pub", d / "authorized_keys")
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation directory
        port = free_port()
        key = d / f"{role}_host_ed25519"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"fsp-bench-{role}", "-f", str(key)],
                       check=True)
        conf = d / f"{role}_config"
        conf.write_text(f"""Port {port}
ListenAddress {HOST}
HostKey {key}
PidFile none
AuthorizedKeysFile {d / "authorized_keys"}
PermitRootLogin prohibit-password
AuthenticationMethods publickey
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
UseDNS no
AllowTcpForwarding yes
X11Forwarding no
PrintMotd no
Subsystem sftp internal-sftp
""")
        p = self.daemons.start(role, ["/usr/sbin/sshd", "-D", "-e", "-f", str(conf)], self.run / f"{role}.log")
        self.cpu.add(role, p.pid)  # the listener; the session processes it forks join its cgroup
        wait_for_port(p, port)
        self.ports[role] = port
        with open(d / "known_hosts", "a") as f:
            f.write(f"[{HOST}]:{port} {' '.join(key.with_suffix('.pub').read_text().split()[:2])}\n")
        # the client's config: every host of it is 127.0.0.1, checked against the bench's own known_hosts;
        # the hop's cipher is set here (the command line's -c sets the server's)
        hosts = {"sshd": "fsp-sshd", "sshd-hop": "fsp-sshd-hop"}
        blocks = [f"Host {hosts[r]}\n  Port {self.ports[r]}\n" for r in hosts if r in self.ports]
        (d / "ssh_config").write_text("".join(blocks) + f"""Host fsp-sshd-hop
  Ciphers aes128-gcm@openssh.com
Host {" ".join(hosts.values())}
  HostName {HOST}
  User root
  IdentityFile {d / "id_ed25519"}
  IdentitiesOnly yes
  UserKnownHostsFile {d / "known_hosts"}
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  CheckHostIP no
  BatchMode yes
  ControlMaster no
  LogLevel ERROR
""")
        self.ssh_config = d / "ssh_config"
        r = subprocess.run(["ssh", "-F", str(self.ssh_config), hosts[role], "true"], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            die(f"ssh key login to {role} on {HOST}:{port} failed: {r.stderr.strip()}; {p.log}:\n{tail(p.log)}")
        log(f"{role} (OpenSSH) on {HOST}:{port}")

    def start_wormhole(self, venv):
        """magic-wormhole's mailbox server and transit relay (twistd), counted together as role wormhole, in a
        network namespace of their own that has only lo; the wormhole clients run in it too, so nothing they
        send can leave loopback."""
        self.netns = LoopbackNamespace(f"fsp-{PROG}-{os.getpid()}")
        twistd = str(venv / "bin" / "twistd")
        for name, port, plugin in [
                ("wormhole-mailbox", WORMHOLE_MAILBOX,
                 ["wormhole-mailbox", f"--port=tcp:{WORMHOLE_MAILBOX}:interface={HOST}",
                  f"--channel-db={self.run / 'wormhole-mailbox.sqlite'}"]),
                ("wormhole-transit", WORMHOLE_TRANSIT,
                 ["transitrelay", f"--port=tcp:{WORMHOLE_TRANSIT}:interface={HOST}"])]:
            p = self.daemons.start(name, self.netns.argv([twistd, "-n", "--pidfile=", "-l",
                                                          str(self.run / f"{name}.twistd.log"), *plugin]),
                                   self.run / f"{name}.log", cwd=self.run)
            self.cpu.add("wormhole", p.pid)  # ip netns exec execs twistd: the same process
            self.netns.wait_listening(p, port)
        self.ports["wormhole"] = WORMHOLE_MAILBOX
        log(f"magic-wormhole mailbox server on {HOST}:{WORMHOLE_MAILBOX}, transit relay on {HOST}:{WORMHOLE_TRANSIT}, "
            f"in network namespace {self.netns.name} (lo only)")


WORMHOLE_PKGS = ["magic-wormhole==0.24.0", "magic-wormhole-mailbox-server==0.8.0",
                 "magic-wormhole-transit-relay==0.5.0"]
WORMHOLE_MAILBOX, WORMHOLE_TRANSIT = 4000, 4001  # fixed ports: the network namespace is the bench's own


class LoopbackNamespace:
    """A network namespace with only lo (up), its own /etc/netns hosts and resolv.conf (name lookups fail at
    once): what runs in it can reach nothing but its own loopback. Removed with whatever still runs in it (only
    processes this script started)."""

    def __init__(self, name):
        self.name = name
        r = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
        if r.returncode != 0:
            die(f"ip netns add {name} failed: {r.stderr.strip()}")
        self.etc = Path("/etc/netns") / name
        self.made_parent = not self.etc.parent.exists()  # /etc/netns: removed again only if made here and empty
        self.etc.mkdir(parents=True, exist_ok=True)
        (self.etc / "hosts").write_text(f"127.0.0.1 localhost {socket.gethostname()}\n::1 localhost\n")
        (self.etc / "resolv.conf").write_text("nameserver 127.0.0.1\n")
        subprocess.run(self.argv(["ip", "link", "set", "lo", "up"]), check=True)
        links = subprocess.run(self.argv(["ip", "-o", "link"]), capture_output=True, text=True).stdout.splitlines()
        if [line.split(":")[1].strip() for line in links] != ["lo"]:
            self.remove()
            die(f"network namespace {name} has more than lo: {links}")

    def argv(self, argv):
        return ["ip", "netns", "exec", self.name, *argv]

    def wait_listening(self, p, port, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and p.poll() is None:
            ss = subprocess.run(self.argv(["ss", "-Hltn", f"sport = :{port}"]), capture_output=True, text=True)
            if f"{HOST}:{port}" in ss.stdout:
                return
            time.sleep(0.1)
        die(f"{p.name} does not listen on {HOST}:{port} in {self.name}; {p.log}:\n{tail(p.log)}")

    def remove(self):
        kill_until_gone(lambda: subprocess.run(["ip", "netns", "pids", self.name], capture_output=True,
                                               text=True).stdout.split())
        subprocess.run(["ip", "netns", "del", self.name], stderr=subprocess.DEVNULL)
        shutil.rmtree(self.etc, ignore_errors=True)
        if self.made_parent:
            try:
                self.etc.parent.rmdir()
            except OSError:
                pass


def wormhole_venv(venv):
    """magic-wormhole, its mailbox server and transit relay from PyPI (pinned) in a venv of the benchmark's own
    (made once, kept in DIR); never the system Python's."""
    if all((venv / "bin" / x).exists() for x in ("wormhole", "twistd")):
        return venv
    log(f"installing {' '.join(WORMHOLE_PKGS)} into {venv} (python -m venv, pip from PyPI)")
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", *WORMHOLE_PKGS],
                   check=True)
    return venv


# ---- before anything is timed ------------------------------------------------------------------------------

def install_missing(need_gridftp, need_vsftpd, extra=()):
    """apt-get installs what is missing: curl, openssl, gnuplot, cmp always; vsftpd, GridFTP when asked; extra:
    (command, package) pairs."""
    need = []
    for cmd, pkg in [("curl", "curl"), ("openssl", "openssl"), ("gnuplot", "gnuplot-nox"), ("cmp", "diffutils")]:
        if not shutil.which(cmd):
            need.append(pkg)
    if need_vsftpd and not os.access("/usr/sbin/vsftpd", os.X_OK):
        need.append("vsftpd")
    if need_gridftp:
        if not shutil.which("globus-gridftp-server"):
            need.append("globus-gridftp-server-progs")
        if not shutil.which("globus-url-copy"):
            need.append("globus-gass-copy-progs")
    need += [pkg for cmd, pkg in extra if not shutil.which(cmd) and pkg not in need]
    if need:
        log(f"installing {' '.join(need)} (apt-get)")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        # no service may start (openssh-server would start a system sshd on port 22): policy-rc.d says no
        policy = Path("/usr/sbin/policy-rc.d")
        made = not policy.exists()
        if made:
            policy.write_text("#!/bin/sh\nexit 101\n")
            policy.chmod(0o755)
        try:
            subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
            subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *need], check=True,
                           env=env, stdout=subprocess.DEVNULL)
        finally:
            if made:
                policy.unlink()


def make_source(src, size):
    if src.exists() and src.stat().st_size == size:
        return
    log(f"writing {size} random bytes to {src}")
    tmp = src.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        left = size
        while left:
            n = min(left, 8 << 20)
            f.write(os.urandom(n))
            left -= n
    tmp.rename(src)



def help_text(script):
    """The script's header comment, up to the first line of code: its --help."""
    text = ""
    for line in Path(script).read_text().splitlines(True)[1:]:
        if not line.startswith("#"):
            break
        text += line[2:] if line.startswith("# ") else line[1:]
    return text


def build_launchers(launchers):
    """Builds what the launchers would build on first use (bin/launch), so no timed run includes a build."""
    for launcher in launchers:
        subprocess.run([str(BIN / launcher), "--version"], check=True, stdout=subprocess.DEVNULL)


def make_class_data_archives():
    """bin/launch makes a class-data archive from the first run after a build, which then takes seconds longer;
    one untimed demo (its own server, relays and client) makes them before anything is timed."""
    if any(not (ROOT / m / "target" / "cds" / "app.jsa").exists() for m in ("fsp-cli", "fsp-server", "fsp-relay")):
        log("making the launchers' class-data archives (once per build): bin/fsp demo --size-mb 1")
        subprocess.run([str(BIN / "fsp"), "demo", "--size-mb", "1"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


def stop_on_signals():
    """SIGTERM and SIGHUP go through main's finally (every server is stopped), as Ctrl-C does."""
    def on_signal(signum, _frame):
        log(f"{signal.Signals(signum).name}: stopping")
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)


# ---- report -----------------------------------------------------------------------------------------------

def fmt(x, spec=".2f"):
    return "–" if x is None else format(x, spec)


def median_of(runs, key):
    vals = [r[key] for r in runs if r[key] is not None]
    return statistics.median(vals) if vals else None


def load_average():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def machine_cpu_seconds():
    """CPU seconds the whole machine has spent, all cores together, whoever spent them: processes, the kernel's
    threads (a loop device's writes, the journal), interrupts. Idle and I/O wait are not counted."""
    user, nice, system, idle, iowait, irq, softirq, steal = (
        int(x) for x in open("/proc/stat").readline().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


FSP_COLOUR, PEER_COLOUR, FAILED_COLOUR = 0x3b6ea8, 0xd98c3a, 0xc0392b  # FSP blue, peers orange, failed red


def bar_chart(png, title, panels, ylabel="seconds"):
    """Bars (median) with min-max whiskers, one panel per (panel title, rows), rows being (name, median, min,
    max, colour[, label above the bar: the median's seconds unless given]); drawn by gnuplot into png. A single
    panel without a title is drawn as bench-peers always drew its chart. Nothing is drawn (and an old png is
    removed) when no panel has rows."""
    png.unlink(missing_ok=True)
    panels = [(t, rows) for t, rows in panels if rows]
    if not panels:
        return
    data = [png.with_name(f"{png.stem}.chart{i}.tsv") for i in range(len(panels))]
    for path, (_, rows) in zip(data, panels):
        with open(path, "w") as f:
            for name, med, lo, hi, colour, *label in rows:
                f.write(f"{name}\t{med:.3f}\t{lo:.3f}\t{hi:.3f}\t{colour}\t{label[0] if label else f'{med:.2f}'}\n")
    cols = 1 if len(panels) == 1 else 2
    rows_n = (len(panels) + cols - 1) // cols
    size = "1400,800" if len(panels) == 1 else f"1600,{620 * rows_n}"
    script = f"""
set terminal pngcairo size {size} noenhanced font ",10"
set output '{png}'
"""
    if len(panels) == 1 and not panels[0][0]:
        script += f'set title "{title}"\n'
    else:
        script += f'set multiplot layout {rows_n},{cols} title "{title}"\n'
    script += f"""set datafile separator "\\t"
set style fill solid 0.7 border -1
set boxwidth 0.7
set grid ytics
set yrange [0:*]
set ylabel "{ylabel}"
set xtics rotate by -35 left nomirror
set bmargin 14
set rmargin 12
set pointsize 0
"""
    for path, (ptitle, rows) in zip(data, panels):
        if ptitle:
            script += f'set title "{ptitle}"\n'
        if len(panels) > 1:  # room for a lone bar's width and for the labels above the tallest
            script += f"set xrange [-0.6:{len(rows) - 0.4}]\nset offsets 0,0,graph 0.1,0\n"
        script += f"""plot '{path}' using 0:2:5:xtic(1) with boxes lc rgb variable notitle, \\
     '' using 0:2:3:4 with yerrorbars lc rgb "black" notitle, \\
     '' using 0:4:6 with labels offset 0,0.8 notitle
"""
    if len(panels) > 1:
        script += "unset multiplot\n"
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    for path in data:
        path.unlink()
    if r.returncode != 0:
        log(f"gnuplot failed (no chart): {r.stderr.strip()}")
