#!/usr/bin/env python3
"""Where a request's CPU goes, kernel included, from an async-profiler recording in collapsed form.

async-profiler (event=cpu) samples the whole thread, Java, native and kernel frames alike, so the time
a request spends sending to Redis and waiting for its reply is in the shares, which a JFR recording
(jfr-summary.py) leaves out. Keeps the samples whose stack holds one request path (StoreNode.readCart
or StoreNode.changeCart) and prints the share of those samples whose stack holds each part below
(inclusive: parts may nest, and do not add up to 100%), then the top frames of their own.

Usage: collapsed-summary.py RECORDING.collapsed [TOP]
(record with -agentpath:.../libasyncProfiler.so=start,event=cpu,interval=200us,threads,file=F,collapsed;
docs/benchmarks/round-09.md has the whole command)
"""
import sys
from collections import Counter

PATHS = {
    "read-only request (StoreNode.readCart)": "io/lazysession/it/bench/StoreNode.readCart",
    "changing request (StoreNode.changeCart)": "io/lazysession/it/bench/StoreNode.changeCart",
}

PARTS = [
    ("Lettuce: sending (encoding, channel write and flush)",
     ("io/lettuce/core/AbstractRedisAsyncCommands.dispatch",)),
    ("Lettuce: waiting for the reply (park, wake-up)",
     ("io/lazysession/redis/SessionConnection$Lettuce.await",)),
    ("decoding attributes (EnvelopeLazyValue.get)", ("io/lazysession/serializer/EnvelopeLazyValue.get",)),
    ("encoding read attributes again to compare (SessionAttributes.changed)",
     ("io/lazysession/redis/SessionAttributes.changed",)),
    ("building the pack (AttributePacking)", ("io/lazysession/redis/AttributePacking",)),
    ("zstd", ("ZSTD_", "HUF_", "FSE_", "com/github/luben/zstd/")),
    ("near cache (Caffeine)", ("com/github/benmanes/caffeine/",)),
    ("findById", ("io/lazysession/redis/LazyRedisSessionRepository.findById",)),
    ("save", ("io/lazysession/redis/LazyRedisSessionRepository.save",)),
]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    totals = Counter()
    parts = {path: Counter() for path in PATHS}
    own = {path: Counter() for path in PATHS}
    with open(sys.argv[1], encoding="utf-8", errors="replace") as recording:
        for line in recording:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            for path, marker in PATHS.items():
                if marker not in stack:
                    continue
                samples = int(count)
                totals[path] += samples
                own[path][stack.rsplit(";", 1)[-1]] += samples
                for name, patterns in PARTS:
                    if any(pattern in stack for pattern in patterns):
                        parts[path][name] += samples
    for path in PATHS:
        total = totals[path]
        print(f"== {path}: {total} samples")
        if not total:
            continue
        print("-- parts (inclusive)")
        for name, _ in PARTS:
            print(f"{100 * parts[path][name] / total:6.1f}%  {name}")
        print("-- top frames of their own")
        for frame, samples in own[path].most_common(top):
            print(f"{100 * samples / total:6.1f}%  {frame[:140]}")
        print()


if __name__ == "__main__":
    main()
