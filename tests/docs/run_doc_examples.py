#!/usr/bin/python3
"""Docs are tests: runs every ```sql example of README.md and docs/*.md with the mariadb CLI, in order, against a
fresh Sluice server per document and the `make demo` environment (tools/demo/demo.py), and checks the output each
example shows.

Conventions for writers (docs/demo.md repeats them):
- Every ```sql block runs, statement by statement, in one document-long story: a `USE db` carries over to the next
  statements and blocks. A line starting with `$ ` (a shell prompt such as `$ mariadb -h127.0.0.1 -P9030 -uroot`)
  is skipped.
- `<!-- not run: reason -->` on the line before a ```sql block (blank lines may sit between) skips it: grammar
  synopses, and examples that need something the demo cannot give (a real AWS account).
- A ```text block right after a ```sql block (only blank lines between) is what the block prints: the mariadb CLI's
  tables and `ERROR nnnn (sssss): message` lines, compared line by line after trimming spaces. `...` in a line
  matches any text, and a line holding only `...` matches any number of lines. A block that shows no output must
  run without an error. A block of only SELECT/SHOW/DESC statements is retried for up to 60 s until its output
  matches, so an example can show what a load gives once it has caught up.
- The demo's fixed addresses (127.0.0.1:9092, :8081, :4568, /tmp/sluice-demo/) are rewritten to the ports and folder
  this run started the demo on, so the test never fights a developer's own `make demo` for a port.

  usage: run_doc_examples.py --server build/sluice [--build-dir build] [FILE.md ...]
"""
from __future__ import annotations

import argparse
import dataclasses
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))

import harness  # noqa: E402

READ_ONLY = re.compile(r"^\s*(SELECT|SHOW|DESC|DESCRIBE|EXPLAIN|WITH)\b", re.I)
RETRY_SECONDS = 60


@dataclasses.dataclass
class Example:
    path: str
    line: int          # line of the ```sql fence
    sql: str
    expected: str | None
    skip_reason: str | None


def parse_examples(path: str) -> list[Example]:
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks = []  # (info, start line index, body, preceding non-blank line)
    i = 0
    last_text_line = ""
    while i < len(lines):
        fence = re.match(r"^(\s*)```(\S*)", lines[i])
        if not fence:
            if lines[i].strip():
                last_text_line = lines[i].strip()
            i += 1
            continue
        info, start = fence.group(2).lower(), i
        body = []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            body.append(lines[i])
            i += 1
        blocks.append((info, start, "\n".join(body), last_text_line))
        last_text_line = "```"
        i += 1

    def only_blank_between(a_end: int, b_start: int) -> bool:
        return all(not lines[k].strip() for k in range(a_end + 1, b_start))

    examples = []
    for n, (info, start, body, before) in enumerate(blocks):
        if info != "sql":
            continue
        skip = re.match(r"<!--\s*not run:\s*(.*?)\s*-->", before)
        expected = None
        if n + 1 < len(blocks) and blocks[n + 1][0] == "text":
            end = start + body.count("\n") + 2  # the closing fence
            if only_blank_between(end, blocks[n + 1][1]):
                expected = blocks[n + 1][2]
        examples.append(Example(path, start + 1, body, expected, skip.group(1) if skip else None))
    return examples


def split_statements(sql: str) -> list[tuple[str, str]]:
    """Splits on ';' and '\\G' outside quotes and comments. Returns (statement, terminator) pairs."""
    out, cur, i, n = [], [], 0, len(sql)
    quote = None
    while i < n:
        c = sql[i]
        if quote:
            cur.append(c)
            if c == "\\" and quote != "`" and i + 1 < n:
                cur.append(sql[i + 1])
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
            cur.append(c)
        elif sql.startswith("--", i) and (i + 2 >= n or sql[i + 2] in " \t\n"):
            j = sql.find("\n", i)
            i = n if j < 0 else j
            continue
        elif c == ";" or sql.startswith("\\G", i):
            text = "".join(cur).strip()
            if text:
                out.append((text, ";" if c == ";" else "\\G"))
            cur = []
            i += 1 if c == ";" else 2
            continue
        else:
            cur.append(c)
        i += 1
    rest = "".join(cur).strip()
    if rest:
        out.append((rest, ";"))
    return out


class Demo:
    def __init__(self, build_dir: str):
        self.folder = tempfile.mkdtemp(prefix="sluice-docs-demo-")
        self.kafka_port, self.registry_port, self.s3_port = (harness.free_port() for _ in range(3))
        self.log_path = os.path.join(self.folder, "demo.log")
        self.proc = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(ROOT, "tools", "demo", "demo.py"), "--build-dir", build_dir,
             "--kafka-port", str(self.kafka_port), "--registry-port", str(self.registry_port),
             "--s3-port", str(self.s3_port), "--folder", self.folder],
            stdout=subprocess.PIPE, stderr=open(self.log_path, "w"), text=True, start_new_session=True)
        seen = []
        for line in self.proc.stdout:
            seen.append(line)
            if line.strip() == "READY":
                return
        raise RuntimeError("the demo did not start:\n" + "".join(seen) + open(self.log_path).read())

    def rewrite(self, text: str) -> str:
        text = text.replace("127.0.0.1:9092", f"127.0.0.1:{self.kafka_port}")
        text = text.replace("127.0.0.1:8081", f"127.0.0.1:{self.registry_port}")
        text = text.replace("127.0.0.1:4568", f"127.0.0.1:{self.s3_port}")
        return text.replace("/tmp/sluice-demo/", self.folder.rstrip("/") + "/")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def run_block(port: int, db: str | None, sql: str) -> tuple[str, list[str]]:
    """Runs a block's statements in one mariadb CLI session (so SET ROLE and the like last for the block) and returns
    what it printed, tables and error lines in order, and the error lines."""
    cmd = ["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot", "--table", "--force", "--unbuffered", "--skip-ssl"]
    if db:
        cmd.append(f"-D{db}")
    r = subprocess.run(cmd, input=sql + "\n", stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=300)
    out = re.sub(r"^(ERROR \d+ \(\w+\)) at line \d+", r"\1", r.stdout, flags=re.M)
    return out.strip("\n"), [line for line in out.split("\n") if re.match(r"^ERROR \d+", line)]


def normalize(text: str) -> list[str]:
    """Trims and collapses spaces; a table border's width follows the client's column widths, so any run of dashes
    in a border line is one dash."""
    out = []
    for line in text.split("\n"):
        line = re.sub(r"\s+", " ", line).strip()
        if re.fullmatch(r"\+[-+]*", line):
            line = re.sub(r"-+", "-", line)
        if line:
            out.append(line)
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    def line_ok(e: str, a: str) -> bool:
        pattern = ".*".join(re.escape(part) for part in e.split("..."))
        return re.fullmatch(pattern, a) is not None

    def go(i: int, j: int) -> bool:
        if i == len(expected):
            return j == len(actual)
        if expected[i] == "...":
            return any(go(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and line_ok(expected[i], actual[j]) and go(i + 1, j + 1)

    return go(0, 0)


def run_document(path: str, server_binary: str, demo: Demo) -> list[str]:
    failures = []
    examples = parse_examples(path)
    runnable = [e for e in examples if not e.skip_reason]
    if not runnable:
        return failures
    with harness.SluiceServer(server_binary) as server:
        db = None
        for ex in runnable:
            where = f"{os.path.relpath(ex.path, ROOT)}:{ex.line}"
            sql = "\n".join(line for line in demo.rewrite(ex.sql).split("\n") if not line.startswith("$ "))
            statements = split_statements(sql)
            read_only = all(READ_ONLY.match(stmt) for stmt, _ in statements)
            deadline = time.time() + (RETRY_SECONDS if read_only and ex.expected is not None else 0)
            run_db = db
            for stmt, _ in statements:
                use = re.match(r"^\s*USE\s+`?(\w+)`?\s*$", stmt, re.I)
                if use:
                    run_db = use.group(1)
            while True:
                output, errors = run_block(server.mysql_port, db, sql)
                if ex.expected is None:
                    ok = not errors
                else:
                    ok = matches(normalize(demo.rewrite(ex.expected)), normalize(output))
                if ok or time.time() >= deadline:
                    break
                time.sleep(1)
            db = run_db
            if ok:
                print(f"ok   {where}")
                continue
            if ex.expected is None:
                failures.append(f"{where}: an example without shown output failed:\n  " + "\n  ".join(errors))
            else:
                failures.append(f"{where}: the output differs from the doc.\n--- the doc shows:\n{ex.expected}\n"
                                f"--- the server printed:\n{output}")
            print(f"FAIL {where}")
    return failures


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=harness.default_server_path())
    ap.add_argument("--build-dir", default=None, help="where testbroker and avroproducer are (default: beside --server)")
    ap.add_argument("docs", nargs="*")
    a = ap.parse_args()
    build_dir = a.build_dir or os.path.dirname(os.path.abspath(a.server))
    docs = a.docs or [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    demo = Demo(build_dir)
    failures = []
    try:
        for path in docs:
            failures += run_document(path, a.server, demo)
    finally:
        demo.stop()
    for f in failures:
        print("\n" + f)
    print(f"\n{len(failures)} example(s) failed" if failures else "\nevery example ran as documented")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
