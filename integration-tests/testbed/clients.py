#!/usr/bin/env python3
# The testbed's timed client processes (testbed.sh runs this as its coprocess): every client, FSP's and the peers',
# is started here inside a namespace's long-lived holder process (nsenter -n -m: its network and mount namespaces)
# and timed by the same clock, and every FSP command meets the resident client agent as benchlib.ClientAgent
# (bin/benchlib.py, shared with bench-peers and bench-scale) arranges it: "cold" (`fsp agent stop` first, so the
# command starts the agent, counted with the client), "warm" (the agent started once with `fsp agent start`, in a
# cgroup of its own: its CPU and peak RSS are the "agent" role) or "in-process" (FSP_AGENT=off). Each namespace
# has its agents of its own: an agent is keyed by network and mount namespace, and the holder's are the ones
# every command run here shares (a new `ip netns exec` would make a new mount namespace and never find it).
#
#   clients.py RUN_DIR MODES NS=PID...      MODES: comma-separated agent modes asked for; NS=PID: a holder
#
# Prints the modes it will run (those asked that this build has: without an `fsp agent` command only in-process)
# on its first line, then answers one request per line, tab-separated (no field may hold a tab or newline):
#
#   run NS MODE OUT ERR ARGV...   -> rc wall_s client_cpu_s agent_cpu_s agent_peak_rss_mib machine_cpu_s
#   end                           (or the end of input: the processes testbed.sh starts may hold it open)
#
# MODE "-" for a command that is not FSP's (no agent). OUT and ERR may be the same file. "-" stands for a figure
# that does not apply. client_cpu_s: the client process and its children (wait4); for a cold run the agent it
# started is counted apart from it, as agent_cpu_s, from the cold run's cgroup. At the end both agents of every
# namespace are stopped and the cgroups removed.
import os
import subprocess
import sys
import time
import types
from pathlib import Path

sys.argv[0] = "testbed"  # benchlib names its messages and cgroups after the program
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bin"))
from benchlib import ClientAgent, CpuGroups, die, machine_cpu_seconds, stop_on_signals  # noqa: E402


def fig(x):
    return "-" if x is None else f"{x:.3f}"


def main():
    run_dir, asked = Path(sys.argv[1]), sys.argv[2].split(",")
    holders = dict(a.split("=", 1) for a in sys.argv[3:])
    stop_on_signals()  # SIGTERM and SIGHUP end it through the finally below, as the end of input does
    cpu = CpuGroups()
    setup = types.SimpleNamespace(env=dict(os.environ), run=run_dir, cpu=cpu)
    agents = {}
    try:
        for ns, pid in holders.items():
            agents[ns] = ClientAgent(setup, wrap=["nsenter", "-t", pid, "-n", "-m", "--"])
        have = next(iter(agents.values())).modes if agents else ()
        print(" ".join(m for m in asked if m in have), flush=True)
        for line in sys.stdin:
            f = line.rstrip("\n").split("\t")
            if f == ["end"]:
                break
            if f[0] != "run" or len(f) < 6 or f[1] not in agents:
                die(f"unknown request {line!r}", 2)
            ns, mode, out, err, argv = f[1], None if f[2] == "-" else f[2], f[3], f[4], f[5:]
            agent = agents[ns]
            agent0, join = agent.before(mode) if mode else (None, None)
            with open(out, "wb") as o, open(err, "wb") if err != out else o as e:
                machine0 = machine_cpu_seconds()
                t0 = time.monotonic()
                proc = subprocess.Popen(agent.wrap + argv, stdin=subprocess.DEVNULL, stdout=o, stderr=e,
                                        preexec_fn=join, env=agent.env.get(mode, setup.env))
                _, status, ru = os.wait4(proc.pid, 0)  # the exit and the rusage of it and its reaped children
                wall = time.monotonic() - t0
                machine = machine_cpu_seconds() - machine0
                proc.returncode = os.waitstatus_to_exitcode(status)
            agent_cpu, agent_rss = agent.after(mode, agent0) if mode else (None, None)
            client_cpu = ru.ru_utime + ru.ru_stime
            if mode == "cold" and agent_cpu is not None:  # the cold group: the client and the agent it started
                agent_cpu = agent_cpu - client_cpu
            print("\t".join([str(proc.returncode), fig(wall), fig(client_cpu), fig(agent_cpu), fig(agent_rss),
                             fig(machine)]), flush=True)
    finally:
        for agent in agents.values():
            agent.stop_all()
        cpu.remove()


if __name__ == "__main__":
    main()
