#!/usr/bin/env python3
"""Prints one line per module with the unit (surefire) and integration (failsafe) test counts, the
failed tests, the skipped ones with the reason each gave, and which Redis backend (and version) each
integration test class ran on."""
import glob
import os
import re
import xml.etree.ElementTree as ET

root = os.path.join(os.path.dirname(__file__), "..")
totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
failed = []
skipped = []
print(f"{'module':<20} {'kind':<9} {'tests':>6} {'fail':>5} {'err':>4} {'skip':>5}")
for module in sorted(os.listdir(root)):
    for kind in ("surefire", "failsafe"):
        reports = glob.glob(os.path.join(root, module, "target", f"{kind}-reports", "TEST-*.xml"))
        if not reports:
            continue
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for report in reports:
            # Count the test cases themselves: the suite's own counters miss the invocations of
            # parameterized test classes.
            for case in ET.parse(report).getroot().iter("testcase"):
                counts["tests"] += 1
                if case.find("failure") is not None:
                    counts["failures"] += 1
                if case.find("error") is not None:
                    counts["errors"] += 1
                if case.find("skipped") is not None:
                    counts["skipped"] += 1
                    element = case.find("skipped")
                    # The reason: the attribute, else the first line of the exception it holds.
                    reason = element.get("message") or (element.text or "").strip().split("\n")[0]
                    reason = re.sub(r"^[\w.]+Exception: ", "", reason) or "no reason given"
                    skipped.append(f"{case.get('classname')}.{case.get('name')}: {reason}")
                if case.find("failure") is not None or case.find("error") is not None:
                    failed.append(f"{case.get('classname')}.{case.get('name')}")
        for key in counts:
            totals[key] += counts[key]
        print(f"{module:<20} {kind:<9} {counts['tests']:>6} {counts['failures']:>5} "
              f"{counts['errors']:>4} {counts['skipped']:>5}")
print(f"{'total':<20} {'':<9} {totals['tests']:>6} {totals['failures']:>5} {totals['errors']:>4} "
      f"{totals['skipped']:>5}")
for name in failed:
    print(f"FAILED: {name}")
for name in skipped:
    print(f"SKIPPED: {name}")

print("\nRedis used by the integration tests:")
pattern = re.compile(r"lazysession test Redis for (\S+): (\S+) via (\w+)(?:, Redis (\S+),)?")
for output in sorted(glob.glob(os.path.join(root, "*", "target", "failsafe-reports", "*-output.txt"))):
    with open(output, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            match = pattern.search(line)
            if match:
                print(f"  {match.group(1):<40} {match.group(2):<16} {match.group(3):<15} "
                      f"{match.group(4) or ''}".rstrip())
