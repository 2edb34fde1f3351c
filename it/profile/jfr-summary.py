#!/usr/bin/env python3
"""Where the request-thread CPU goes, from a JFR recording of the replication-cost benchmark.

Reads the jdk.ExecutionSample events of a recording (through `jfr print --json`), keeps the samples of
the benchmark's request threads whose stack holds one request path (StoreNode.readCart for the
read-only request, StoreNode.changeCart for the changing one), and prints for each path:
  - samples by component: each sample is charged to the first frame, from the top of the stack, that
    belongs to a known library (zstd, Kryo, Lettuce, Netty, Caffeine, lazysession...), so the shares
    add up to 100%;
  - the top self frames (the method on top of the stack), by share of samples;
  - the top inclusive lazysession frames (share of samples whose stack holds the method).

Usage: jfr-summary.py RECORDING.jfr [TOP]
"""
import json
import subprocess
import sys
from collections import Counter

PATHS = {
    "read-only request (StoreNode.readCart)": "io.lazysession.it.bench.StoreNode.readCart",
    "changing request (StoreNode.changeCart)": "io.lazysession.it.bench.StoreNode.changeCart",
}

COMPONENTS = [
    ("zstd (zstd-jni)", ("com.github.luben.zstd.",)),
    ("Kryo", ("com.esotericsoftware.",)),
    ("JDK serialization", ("java.io.ObjectOutputStream", "java.io.ObjectInputStream",
                           "java.io.ObjectStreamClass")),
    ("Caffeine (near cache)", ("com.github.benmanes.caffeine.",)),
    ("Lettuce", ("io.lettuce.",)),
    ("Netty", ("io.netty.",)),
    ("Spring Session / Spring Data Redis", ("org.springframework.",)),
    ("lazysession serializer", ("io.lazysession.serializer.",)),
    ("lazysession store", ("io.lazysession.redis.",)),
    ("benchmark harness", ("io.lazysession.it.",)),
]


def name(frame):
    method = frame["method"]
    return method["type"]["name"].replace("/", ".") + "." + method["name"]


def component(frames):
    for frame in frames:
        qualified = name(frame)
        for label, prefixes in COMPONENTS:
            if qualified.startswith(prefixes):
                return label
    return "JDK / other"


def main():
    recording = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    printed = subprocess.run(["jfr", "print", "--json", "--stack-depth", "128", "--events",
                              "jdk.ExecutionSample", recording], check=True,
                             capture_output=True, text=True).stdout
    events = json.loads(printed)["recording"]["events"]
    for title, marker in PATHS.items():
        stacks = []
        for event in events:
            values = event["values"]
            thread = (values.get("sampledThread") or {}).get("javaName") or ""
            if not thread.startswith("bench-request-"):
                continue
            frames = (values.get("stackTrace") or {}).get("frames") or []
            names = [name(f) for f in frames]
            if marker in names:
                stacks.append((frames, names))
        print(f"== {title}: {len(stacks)} samples")
        if not stacks:
            continue
        n = len(stacks)
        by_component = Counter(component(frames) for frames, _ in stacks)
        print("-- by component (first known library from the top of the stack)")
        for label, count in by_component.most_common():
            print(f"{100.0 * count / n:5.1f}%  {label}")
        print(f"-- top {top} self frames")
        for method, count in Counter(names[0] for _, names in stacks).most_common(top):
            print(f"{100.0 * count / n:5.1f}%  {method}")
        print(f"-- top {top} inclusive lazysession frames")
        inclusive = Counter()
        for _, names in stacks:
            inclusive.update({m for m in names if m.startswith("io.lazysession.")
                              and not m.startswith("io.lazysession.it.")})
        for method, count in inclusive.most_common(top):
            print(f"{100.0 * count / n:5.1f}%  {method}")
        print()


if __name__ == "__main__":
    main()
