#!/usr/bin/python3
"""A one-node Slurm cluster on this machine, for tests and for trying
`./vlgpu sweep --slurm` (docs/sweeps.md): Debian 12's slurm-wlm 22.05 and
munge, started in the foreground with their state in one directory.

Debian's packages install but start nothing (no systemd here), so this
starts munged with its own key and socket, and `slurmctld -D` and
`slurmd -D` with a generated slurm.conf: proctrack/linuxproc and task/none
(no cgroups), DependencyParameters=kill_invalid_depend (a job depending on a
failed one is cancelled, not left pending), MailProg=/bin/true, a fresh
StateSaveLocation, NodeName = `hostname -s` at 127.0.0.1 (no name lookup
needed) with the CPUs `slurmd -C` reports and a RealMemory below its figure,
free TCP ports.  No slurmdbd: read
job states with `scontrol show job` (sacct needs one).

    with OneNodeCluster(Path("/tmp/slurm")) as c:
        subprocess.run(["sbatch", ...], env=c.env())

Command line, for trying it by hand:
    tests/integration/slurm_cluster.py DIR     start, print `export SLURM_CONF=...`,
                                               run until Ctrl-C or SIGTERM, then stop

Errors: ClusterError with the reason and the daemons' log lines when a
program is missing or the node does not come up within the timeout.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

PROGRAMS = {"munged": "munge", "mungekey": "munge", "slurmctld": "slurmctld",
            "slurmd": "slurmd", "sbatch": "slurm-client", "scontrol": "slurm-client",
            "sinfo": "slurm-client"}


class ClusterError(Exception):
    """The cluster could not start: the message says why (and shows the logs)."""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def which(name):
    """PATH lookup that also searches the sbin directories (munged, slurmd)."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


class OneNodeCluster:
    """munged + slurmctld + slurmd for the lifetime of a `with` block (or
    start()/stop()); every file in DIR (created; emptied first)."""

    def __init__(self, directory, start_timeout=30):
        self.dir = Path(directory).resolve()
        self.timeout = start_timeout
        self.procs = []
        self.conf = self.dir / "slurm.conf"

    def env(self, base=None):
        """An environment whose Slurm commands talk to this cluster."""
        env = dict(os.environ if base is None else base)
        env["SLURM_CONF"] = str(self.conf)
        return env

    def logs(self):
        text = []
        for f in sorted((self.dir / "log").glob("*")):
            lines = f.read_text(errors="replace").splitlines()[-15:]
            text.append(f"--- {f.name} (last {len(lines)} lines)\n" + "\n".join(lines))
        return "\n".join(text)

    def start(self):
        missing = [f"{p} (Debian {pkg})" for p, pkg in PROGRAMS.items() if not which(p)]
        if missing:
            raise ClusterError("Slurm cannot start: not installed: " + ", ".join(missing)
                               + " (./vlgpu setup installs them)")
        if self.dir.exists():
            shutil.rmtree(self.dir)
        for sub in ("munge", "state", "spool", "log"):
            (self.dir / sub).mkdir(parents=True)
        (self.dir / "munge").chmod(0o711)  # munged wants its socket's directory searchable
        key = self.dir / "munge" / "munge.key"
        sock = self.dir / "munge" / "munge.socket"
        r = subprocess.run([which("mungekey"), "--create", f"--keyfile={key}"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise ClusterError(f"mungekey failed: {r.stderr.strip()}")
        self._spawn("munged", [which("munged"), "--foreground", "--force", f"--socket={sock}",
                               f"--key-file={key}", f"--pid-file={self.dir}/munge/munged.pid",
                               f"--seed-file={self.dir}/munge/munged.seed",
                               f"--log-file={self.dir}/log/munged.log"])
        self._wait(lambda: sock.exists(), "munged's socket")
        node = socket.gethostname().split(".")[0]
        r = subprocess.run([which("slurmd"), "-C"], capture_output=True, text=True)
        cpus = int(re.search(r"CPUs=(\d+)", r.stdout).group(1)) if "CPUs=" in r.stdout \
            else os.cpu_count()
        m = re.search(r"RealMemory=(\d+)", r.stdout)
        memory = max(256, int(int(m.group(1)) * 0.8)) if m else 1024
        d = self.dir
        self.conf.write_text(f"""# one-node test cluster (tests/integration/slurm_cluster.py)
ClusterName=vlgpu-test
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser={_user()}
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
DependencyParameters=kill_invalid_depend
MailProg=/bin/true
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory} State=UNKNOWN
PartitionName=debug Nodes={node} Default=YES MaxTime=INFINITE State=UP
""")
        env = self.env()
        self._spawn("slurmctld", [which("slurmctld"), "-D", "-f", str(self.conf)], env)
        self._spawn("slurmd", [which("slurmd"), "-D", "-f", str(self.conf)], env)

        def node_up():
            r = subprocess.run([which("sinfo"), "-h", "-N", "-o", "%T"], capture_output=True,
                               text=True, env=env)
            return r.returncode == 0 and r.stdout.strip() in ("idle", "mixed", "allocated")
        self._wait(node_up, f"node {node} idle in sinfo")
        return self

    def _spawn(self, name, cmd, env=None):
        out = open(self.dir / "log" / f"{name}.out", "w")
        self.procs.append((name, subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                                  stdin=subprocess.DEVNULL, env=env,
                                                  start_new_session=True)))

    def _wait(self, ready, what):
        t0 = time.monotonic()
        while time.monotonic() - t0 < self.timeout:
            dead = [(n, p.returncode) for n, p in self.procs if p.poll() is not None]
            if dead:
                self.stop()
                raise ClusterError(f"Slurm cannot start: {dead[0][0]} exited "
                                   f"{dead[0][1]} while waiting for {what}\n{self.logs()}")
            if ready():
                return
            time.sleep(0.2)
        self.stop()
        raise ClusterError(f"Slurm cannot start: no {what} after {self.timeout} s\n"
                           f"{self.logs()}")

    def stop(self):
        """scontrol shutdown, then SIGTERM (SIGKILL after 10 s) to what still runs."""
        if any(p.poll() is None for n, p in self.procs if n == "slurmctld"):
            subprocess.run([which("scontrol"), "shutdown"], env=self.env(),
                           capture_output=True, timeout=30)
        for name, p in reversed(self.procs):
            try:
                p.wait(timeout=5 if name != "munged" else 0.1)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
        self.procs = []

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def _user():
    """The user the daemons run as (SlurmUser): the current one."""
    import pwd
    return pwd.getpwuid(os.getuid()).pw_name


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        print(__doc__)
        sys.exit(2)
    def stop_on(signum, frame):
        raise KeyboardInterrupt
    # SIGTERM too (kill PID), and SIGINT even when started with & from a script,
    # where it arrives ignored
    signal.signal(signal.SIGTERM, stop_on)
    signal.signal(signal.SIGINT, stop_on)
    try:
        with OneNodeCluster(Path(sys.argv[1])) as c:
            print(f"export SLURM_CONF={c.conf}\n(one-node cluster up; Ctrl-C or kill "
                  f"{os.getpid()} stops it)", flush=True)
            try:
                signal.pause()
            except KeyboardInterrupt:
                pass
    except ClusterError as e:
        print(e, file=sys.stderr)
        sys.exit(1)
