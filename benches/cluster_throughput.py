"""Throughput of one `ptc serve --http` instance against three behind HAProxy, same load.

    PTC_BIN=target/release/ptc $PTC_MCP_PYTHON benches/cluster_throughput.py [--clients 8]
        [--calls 50] [--runs 3]

The load: CLIENTS processes, each an official Python MCP client (`mcp` 2.3, `mode="auto"`:
2026-07-28, no session), each making CALLS rounds of two calls: testkit's `echo` and a small
`run_code` (`return 1 + 1`). Every client connects and warms up first; the clock runs from a
common start to the last client's end. Both setups run at once and are measured alternately
(the machine's load drifts), RUNS times each; the medians in calls/s and the ratio
cluster/single are printed. Setups:
    single   `ptc serve --http 127.0.0.1:0 --tools builtin,testkit --instance i1`
    cluster  `deploy/local-cluster.sh 3 PORT` (three such instances behind HAProxy)
Both on this machine, so the instances share its cores with each other and with the clients:
read the ratio as what HAProxy's hop and the extra processes cost here, not as scaling.

Needs: the `ptc` binary ($PTC_BIN, else on PATH), `haproxy` on PATH, and a Python with the
MCP SDK (pip install -r cli/tests/mcp/python/requirements.txt; .ci/run makes $PTC_MCP_PYTHON).
"""

import argparse
import asyncio
import multiprocessing
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from mcp.client.client import Client

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ptc_bin():
    path = os.environ.get("PTC_BIN") or shutil.which("ptc")
    if not path:
        sys.exit("no ptc binary: set PTC_BIN or put ptc on PATH")
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_single(root):
    """One instance; (process, url) once it announced its address."""
    proc = subprocess.Popen(
        [ptc_bin(), "serve", "--http", "127.0.0.1:0", "--tools", "builtin,testkit",
         "--instance", "i1", "--root", root],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        found = re.search(r"serving MCP at (http://\S+)", line)
        if found:
            return proc, found.group(1)
    sys.exit(f"ptc serve exited ({proc.wait()}) without serving")


def start_cluster(root):
    """Three instances behind HAProxy; (process, url) once the script said `ready`."""
    port = free_port()
    proc = subprocess.Popen(
        [os.path.join(REPO, "deploy", "local-cluster.sh"), "3", str(port), "--", "--root", root],
        env={**os.environ, "PTC_BIN": ptc_bin()},
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if proc.stdout.readline().strip() != "ready":
        sys.exit(f"local-cluster.sh exited ({proc.wait()}) before `ready`")
    return proc, f"http://127.0.0.1:{port}/mcp"


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)


async def one_client(url, calls, barrier, times, index, errors):
    async with Client(url) as client:
        # Warm-up: the tool listing and both tools, outside the clock.
        await client.call_tool("echo", {"text": "warm"})
        await client.call_tool("run_code", {"code": "return 1 + 1", "description": "warm"})
        await asyncio.get_running_loop().run_in_executor(None, barrier.wait)
        started = time.monotonic()
        for n in range(calls):
            for name, args in (("echo", {"text": f"call {n}"}),
                               ("run_code", {"code": "return 1 + 1", "description": "bench"})):
                try:
                    result = await client.call_tool(name, args)
                    if result.is_error:
                        errors[index] += 1
                except Exception:  # noqa: BLE001 - counted, the run goes on
                    errors[index] += 1
        times[index] = (started, time.monotonic())


def worker(url, calls, barrier, times, index, errors):
    asyncio.run(one_client(url, calls, barrier, times, index, errors))


def measure(url, clients, calls):
    """(calls per second, errors) of one run of the load against `url`."""
    barrier = multiprocessing.Barrier(clients)
    errors = multiprocessing.Array("i", clients)
    with multiprocessing.Manager() as manager:
        times = manager.list([None] * clients)
        procs = [multiprocessing.Process(target=worker, args=(url, calls, barrier, times, i, errors))
                 for i in range(clients)]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        times = list(times)
    if any(p.exitcode != 0 for p in procs) or None in times:
        sys.exit("a client failed")
    wall = max(end for _, end in times) - min(start for start, _ in times)
    return clients * calls * 2 / wall, sum(errors)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--calls", type=int, default=50, help="rounds (echo + run_code) per client")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rates = {"single": [], "cluster": []}
    with tempfile.TemporaryDirectory() as root:
        # ptc serve's default run store (SQLite; all instances in one file) here, not the user's.
        os.environ["XDG_STATE_HOME"] = root
        # Both up at once, measured alternately: the machine's load drifts, so neither setup
        # gets all the quiet minutes.
        started = {"single": start_single(root), "cluster": start_cluster(root)}
        try:
            for _ in range(args.runs):
                for name, (_, url) in started.items():
                    rate, errors = measure(url, args.clients, args.calls)
                    rates[name].append(rate)
                    print(f"{name:8} {rate:8.1f} calls/s  ({errors} errors)", flush=True)
        finally:
            for proc, _ in started.values():
                stop(proc)
    medians = {name: statistics.median(r) for name, r in rates.items()}
    load = f"{args.clients} clients x {args.calls} x (echo + run_code), median of {args.runs}"
    print(f"\n{load}")
    print(f"single   {medians['single']:8.1f} calls/s")
    print(f"cluster  {medians['cluster']:8.1f} calls/s")
    print(f"ratio cluster/single: {medians['cluster'] / medians['single']:.2f}")


if __name__ == "__main__":
    main()
