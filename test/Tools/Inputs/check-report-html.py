#!/usr/bin/env python3
"""Opens a kgen-bench HTML report in headless Chromium and checks what it
shows against the results file it was made from.

usage: check-report-html.py CHROMIUM REPORT.html RESULTS.json
       check-report-html.py --make-evil IN.json OUT.json

Runs `chromium --headless --dump-dom` on the page (a fresh profile in the
report's folder, console messages logged to stderr) and `--screenshot`,
and prints, for FileCheck: whether the screenshot shows a drawn page,
every console message (the page must log none: no script error,
no load the Content-Security-Policy refused), whether the page's script
ran, how many script, img and on* attributes the DOM holds (one script,
none of the others: names from the files stay text), the title and banner,
each regression with its causes, each history chart's change points, the
roofline's ceilings and points, and whether the figures in the results
table (TFLOP/s, % of the roof, speed-ups, the prediction) match the ones
computed here from RESULTS.json. Exits 1 on a console message or a
mismatch.

--make-evil writes IN.json with names, a reason and a device that try to
inject markup (a script, an img with onerror, a closing table) or a
spreadsheet formula.
"""
import html.parser
import json
import math
import os
import re
import struct
import subprocess
import sys
import zlib


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []  # (tag, attrs dict, text list)
        self.stack = []

    def handle_starttag(self, tag, attrs):
        el = (tag, dict(attrs), [])
        self.elements.append(el)
        if tag not in ("meta", "br", "img", "input", "link", "circle", "line",
                       "polyline", "path", "rect"):
            self.stack.append(el)

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), []))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        for el in self.stack:
            el[2].append(data)


def text(el):
    return re.sub(r"\s+", " ", "".join(el[2])).strip()


def png_facts(path):
    """Width, height and the number of distinct byte values of a PNG's
    pixel data (a blank page has a handful: white and the row filters)."""
    try:
        data = open(path, "rb").read()
    except OSError:
        return 0, 0, 0
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return 0, 0, 0
    width, height = struct.unpack(">II", data[16:24])
    idat, at = b"", 8
    while at + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IDAT":
            idat += data[at + 8:at + 8 + size]
        at += 12 + size
    return width, height, len(set(zlib.decompress(idat)))


def make_evil(src, dst):
    doc = json.load(open(src))
    renames = {"gemm_b": '<script>alert(1)</script>"><img src=x onerror=alert(2)>',
               "cublaslt_gemm_b": "base</td></tr></table><script>alert(3)</script>",
               "cublaslt_gemm_a": '=HYPERLINK("http://x","y")'}
    for r in doc["results"]:
        if r["name"] in renames:
            r["name"] = renames[r["name"]]
        if r["baseline"] in renames:
            r["baseline"] = renames[r["baseline"]]
        if r["name"].startswith("<script>"):
            r["status"], r["reason"] = "wrong", "</pre><iframe src=x></iframe>\x1b[31m"
            r["time"], r["samples_ms"] = None, None
    doc["device"]["name"] = 'H200" onload="alert(4)'
    json.dump(doc, open(dst, "w"))


def main():
    if sys.argv[1] == "--make-evil":
        make_evil(sys.argv[2], sys.argv[3])
        return 0
    chromium, page, results = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    profile = page + ".profile"
    p = subprocess.run([chromium, "--headless", "--disable-gpu", "--no-sandbox",
                        "--no-first-run", "--user-data-dir=" + profile,
                        "--enable-logging=stderr", "--v=0", "--dump-dom",
                        "file://" + page], capture_output=True, text=True, timeout=120)
    failures = 0
    console = [l for l in p.stderr.splitlines() if re.search(r":CONSOLE[:(]", l)]
    for line in console:
        print("console:", line)
    failures += len(console)
    print(f"chromium exit {p.returncode}, {len(console)} console messages")
    shot = page + ".png"
    subprocess.run([chromium, "--headless", "--disable-gpu", "--no-sandbox",
                    "--no-first-run", "--user-data-dir=" + profile,
                    "--hide-scrollbars", "--window-size=1200,900",
                    "--screenshot=" + shot, "file://" + page],
                   capture_output=True, text=True, timeout=120)
    width, height, colours = png_facts(shot)
    print(f"screenshot {width}x{height}, {'drawn' if colours > 16 else 'blank'}")
    failures += colours <= 16
    dom = Dom()
    dom.feed(p.stdout)
    els = dom.elements
    body = next((e for e in els if e[0] == "body"), None)
    print("script ran:", "yes" if body and body[1].get("data-script") == "ran" else "no")
    handlers = sum(1 for e in els for k in e[1] if k.startswith("on"))
    print(f"scripts {sum(e[0] == 'script' for e in els)}, imgs "
          f"{sum(e[0] == 'img' for e in els)}, iframes {sum(e[0] == 'iframe' for e in els)}, "
          f"event handlers {handlers}")
    print("title:", next((text(e) for e in els if e[0] == "title"), None))
    for i, e in enumerate(els):
        if e[1].get("id") == "banner":
            print("banner:", text(e))
        cls = e[1].get("class", "")
        if e[0] == "div" and cls == "regression":
            end = next((j for j in range(i + 1, len(els)) if els[j][0] == "div"),
                       len(els))
            causes = [c[1].get("data-what") for c in els[i:end]
                      if c[1].get("class") == "cause"]
            print(f"regression: {e[1].get('data-kernel')}: causes {causes}")
        if e[0] == "line" and cls.startswith("change"):
            print(f"change point: run {e[1]['data-run']}, ratio "
                  f"{float(e[1]['data-ratio']):.2f}{' (acknowledged)' if 'acked' in cls else ''}")
        if e[0] == "svg" and cls == "history":
            print(f"history chart: {e[1]['aria-label']}, {e[1]['data-runs']} runs, "
                  f"{e[1]['data-changes']} changes")

    doc = json.load(open(results))
    ceil = doc.get("ceilings")
    timed = [r for r in doc["results"] if r["status"] == "ok" and r["tflops"] > 0
             and r["gbps"] > 0]
    svg = next((e for e in els if e[0] == "svg" and e[1].get("class") == "roofline"), None)
    roof = next((e for e in els if e[0] == "polyline" and e[1].get("class") == "roof"), None)
    if svg and roof:
        points = sum(1 for e in els if e[0] == "circle" and e[1].get("class") == "point")
        print(f"roofline: {points} points of {len(timed)} timed results, copy "
              f"{float(roof[1]['data-copy-gbps']):g} GB/s, matmul "
              f"{float(roof[1]['data-matmul-tflops']):g} TFLOP/s")
        failures += points != len(timed) or int(svg[1]["data-points"]) != points
    else:
        print("roofline: none")
    # The first results table against the file.
    table = next(i for i, e in enumerate(els) if e[0] == "table")
    heads = []
    rows = []
    for e in els[table:]:
        if e[0] == "th":
            heads.append(text(e))
        if e[0] == "tr" and "data-name" in e[1]:
            rows.append(e)
        if e[0] == "table" and e is not els[table]:
            break
    checked = mismatches = 0
    for row in rows:
        idx = els.index(row)
        cells = []
        for e in els[idx + 1:]:
            if e[0] == "tr":
                break
            if e[0] == "td":
                cells.append(e)
        cell = dict(zip(heads, cells))
        r = next((x for x in doc["results"] if x["name"] == row[1]["data-name"] and
                  x["implementation"] == row[1]["data-impl"]), None)
        if r is None:
            mismatches += 1
            print("row of no result:", row[1]["data-name"])
            continue
        checked += 1
        want = {}
        if r["status"] == "ok" and r["tflops"] > 0:
            want["TFLOP/s"] = f"{r['tflops']:.1f}"
            if ceil and r["gbps"] > 0:
                ai = r["tflops"] * 1000 / r["gbps"]
                attainable = min(ceil["matmul_tflops"], ceil["copy_gbps"] * ai / 1000)
                want["% of roof"] = f"{100 * r['tflops'] / attainable:.0f}%"
        want["speed-up"] = "-"  # a result that is not right has no speed-up
        if r["status"] == "ok" and r.get("speedup_over_baseline", 0) > 0:
            want["speed-up"] = f"{r['speedup_over_baseline']:.2f}x"
        pred = (r.get("config") or {}).get("predicted_ms") if isinstance(r.get("config"), dict) else None
        if "model ms" in heads:
            want["model ms"] = f"{pred:.4f}" if pred else "-"
        want["status"] = r["status"]
        want["kernel"] = r["name"]
        for head, value in want.items():
            got = text(cell[head]) if head in cell else None
            if got != value:
                mismatches += 1
                print(f"mismatch {r['name']} {head}: page {got!r}, file {value!r}")
    speedups = [r["speedup_over_baseline"] for r in doc["results"]
                if r["implementation"] == "kgen" and r["status"] == "ok"
                and r.get("speedup_over_baseline", 0) > 0]
    geo = next((text(e) for e in els if e[1].get("class") == "geomean"), None)
    if speedups:
        want = f"{math.exp(sum(map(math.log, speedups)) / len(speedups)):.3f}x"
        print(f"speed-up geometric mean: page {geo}, file {want}")
        mismatches += geo != want
    print(f"prediction column: {'yes' if 'model ms' in heads else 'no'}")
    print(f"results rows: {checked} checked, {mismatches} mismatches")
    failures += mismatches
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
