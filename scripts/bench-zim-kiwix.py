#!/usr/bin/env python3
"""The peer of `factdesk-bench zim`: the same kinds of lookups sent to a kiwix-serve on
loopback that serves the same ZIM file, over one kept-alive HTTP connection, timed from the
request to the last byte of the answer. Prints p50/p95 per kind and kiwix-serve's resident
memory. Usage: bench-zim-kiwix.py TITLES PORT BOOK PID [LOOKUPS]
"""

import http.client
import random
import sys
import time
import urllib.parse


def rss_mib(pid, field):
    for line in open(f"/proc/{pid}/status", encoding="ascii"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main():
    titles, port, book, pid = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 2000
    lines = [line.split("\t", 1) for line in open(titles, encoding="utf-8").read().splitlines()]
    articles = [title for kind, title in lines if kind == "article"]
    redirects = [title for kind, title in lines if kind == "redirect"]
    rng = random.Random(7)
    lookups = []
    for i in range(count):
        if i % 3 == 0:
            lookups.append(("article", rng.choice(articles)))
        elif i % 3 == 1:
            lookups.append(("redirect", rng.choice(redirects)))
        else:
            lookups.append(("absent", rng.choice(articles) + " (no such article)"))
    connection = http.client.HTTPConnection("127.0.0.1", port)
    times = {}
    unexpected = 0
    before = rss_mib(pid, "VmRSS")
    for kind, title in lookups:
        # kiwix-tools 3.3 (Debian 12) serves a book at /<book>/<path>; later ones at /content/…
        path = f"/{book}/" + urllib.parse.quote(title.replace(" ", "_"))
        started = time.perf_counter()
        connection.request("GET", path)
        answer = connection.getresponse()
        body = answer.read()
        if answer.status in (301, 302) and kind == "redirect":
            # kiwix-serve answers a redirect entry with a redirect; follow it as a browser would.
            connection.request("GET", answer.getheader("Location"))
            answer = connection.getresponse()
            body = answer.read()
        times.setdefault(kind, []).append((time.perf_counter() - started) * 1000)
        if (answer.status == 200) != (kind != "absent") or (kind != "absent" and not body):
            unexpected += 1
    every = sorted(t for kind_times in times.values() for t in kind_times)
    pct = lambda values, p: sorted(values)[round((len(values) - 1) * p)]
    print(f"kiwix-serve lookups, {len(every)}: p50 {pct(every, 0.5):.2f} ms, p95 {pct(every, 0.95):.2f} ms "
          f"({unexpected} unexpected answers)")
    for kind, kind_times in times.items():
        print(f"  {kind:9} p50 {pct(kind_times, 0.5):.2f} ms, p95 {pct(kind_times, 0.95):.2f} ms")
    print(f"kiwix-serve RSS {before:.0f} MiB before the lookups, {rss_mib(pid, 'VmRSS'):.0f} MiB after, "
          f"peak {rss_mib(pid, 'VmHWM'):.0f} MiB")


if __name__ == "__main__":
    main()
