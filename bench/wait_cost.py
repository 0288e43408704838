#!/usr/bin/env python3
# Run: bash scripts/cluster.sh redis, then python3 bench/wait_cost.py (pip install redis). Issue 31.3.
# What WAIT costs a grab: the sale script's shape (one EVAL that reads a hash and decrements a counter on the
# sale's primary), alone vs followed by the pipeline the app sends with GRAB_REPLICAS=1 (WAIT 1 1000, HGET,
# SISMEMBER), sequentially and from 8 connections at once. Prints a table of per-grab latency and grabs/s.
import threading, time, statistics, redis
from redis.cluster import RedisCluster
rc = RedisCluster(host="127.0.0.1", port=7000)
key = "{waitbench}:stock"
node = rc.get_node_from_key(key)
host, port = node.host, node.port
SCRIPT = "local s = tonumber(redis.call('GET', KEYS[1]) or '0'); redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]); redis.call('SADD', KEYS[3], ARGV[1]); return redis.call('DECR', KEYS[1])"
def run(wait, n, conns):
    lat = []
    lock = threading.Lock()
    def worker(idx):
        r = redis.Redis(host=host, port=port)
        sha = r.script_load(SCRIPT)
        mine = []
        for i in range(n):
            t = time.perf_counter()
            r.evalsha(sha, 3, key, "{waitbench}:grabs", "{waitbench}:buyers", f"{idx}-{i}", "1:2")
            if wait:
                p = r.pipeline(transaction=False)
                p.execute_command("WAIT", 1, 1000)
                p.hget("{waitbench}:grabs", f"{idx}-{i}")
                p.sismember("{waitbench}:buyers", f"{idx}-{i}")
                p.execute()
            mine.append(time.perf_counter() - t)
        with lock:
            lat.extend(mine)
    r0 = redis.Redis(host=host, port=port); r0.set(key, 10**9)
    th = [threading.Thread(target=worker, args=(c,)) for c in range(conns)]
    start = time.perf_counter()
    [t.start() for t in th]; [t.join() for t in th]
    wall = time.perf_counter() - start
    lat.sort()
    return statistics.median(lat) * 1e3, lat[int(len(lat) * 0.99)] * 1e3, len(lat) / wall
print(f"sale primary {host}:{port}, replicas: {redis.Redis(host=host, port=port).info('replication')['connected_slaves']}")
print("| connections | GRAB_REPLICAS | p50 ms | p99 ms | grabs/s |")
print("|---:|---:|---:|---:|---:|")
rows = {}
for conns, n in [(1, 3000), (8, 1000)]:
    for wait in (0, 1):
        p50, p99, rate = run(wait, n, conns)
        rows[(conns, wait)] = (p50, p99, rate)
        print(f"| {conns} | {wait} | {p50:.3f} | {p99:.3f} | {rate:.0f} |")
for conns in (1, 8):
    a, b = rows[(conns, 0)], rows[(conns, 1)]
    print(f"{conns} connection(s): WAIT adds {b[0]-a[0]:.3f} ms at p50, throughput x{b[2]/a[2]:.2f}")
