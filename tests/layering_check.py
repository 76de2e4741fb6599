#!/usr/bin/python3
"""The layering rule, checked: every room's files include only headers of their own room and
of the rooms its row in docs/ARCHITECTURE.md's rooms table allows ("may include").

  tests/layering_check.py [REPO]     exit 0 when every include is allowed, 1 listing each one
                                     that is not (file:line, the include, the room's allowance)
  tests/layering_check.py --self-test   checks a made-up tree with one forbidden include and one
                                     folder missing from the table: both must be reported

An include counts when it is `#include "X/..."` and X is a top-level folder of the repository;
system and Debian headers (<...>) and same-folder includes ("file.h") are not ours to check.
A top-level folder with source files that the table does not list is itself an error, so a new
room cannot skip the rule by not being in the table.
"""
import os
import re
import sys
import tempfile

SOURCE_SUFFIXES = (".h", ".hpp", ".cc", ".cpp", ".c")
ROW = re.compile(r"^\|\s*`([A-Za-z0-9_.-]+)/`\s*\|.*\|\s*([^|]*?)\s*\|\s*$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_.-]+)/')
SKIP_DIRS = {".git", ".ci"}


def read_table(repo):
    """{room: set(allowed rooms)} from the rooms table."""
    rooms = {}
    with open(os.path.join(repo, "docs", "ARCHITECTURE.md"), encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line)
            if not m:
                continue
            allowed = set(re.findall(r"`([A-Za-z0-9_.-]+)/`", m.group(2)))
            rooms[m.group(1)] = allowed
    return rooms


def has_sources(path):
    for root, dirs, files in os.walk(path):
        if any(name.endswith(SOURCE_SUFFIXES) for name in files):
            return True
    return False


def check(repo):
    rooms = read_table(repo)
    if not rooms:
        return ["docs/ARCHITECTURE.md: no rooms table found"]
    top = sorted(d for d in os.listdir(repo)
                 if os.path.isdir(os.path.join(repo, d)) and d not in SKIP_DIRS and not d.startswith("build"))
    problems = []
    for d in top:
        if d not in rooms and has_sources(os.path.join(repo, d)):
            problems.append(f"{d}/: has source files but no row in docs/ARCHITECTURE.md's rooms table")
    ours = set(top)
    for room, allowed in sorted(rooms.items()):
        base = os.path.join(repo, room)
        for root, dirs, files in os.walk(base):
            dirs[:] = [x for x in dirs if not x.startswith("build")]
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = m.group(1)
                        if target == room or target not in ours or target in allowed:
                            continue
                        rel = os.path.relpath(path, repo)
                        may = ", ".join(f"{a}/" for a in sorted(allowed)) or "nothing else of ours"
                        problems.append(f"{rel}:{number}: includes {target}/ but {room}/ may include {may}")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as repo:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(repo, rel)), exist_ok=True)
            with open(os.path.join(repo, rel), "w", encoding="utf-8") as f:
                f.write(text)
        write("docs/ARCHITECTURE.md",
              "| folder | holds | may include |\n| --- | --- | --- |\n"
              "| `low/` | a leaf | none |\n| `high/` | above it | `low/` |\n")
        write("low/a.h", '#pragma once\n#include "low/b.h"\n#include <vector>\n')
        write("low/b.h", '#pragma once\n#include "high/c.h"\n')  # forbidden: low/ may include nothing
        write("high/c.h", '#pragma once\n#include "low/a.h"\n#include "local.h"\n')
        write("stray/d.cc", '#include "low/a.h"\n')  # a room missing from the table
        problems = check(repo)
    expected = ["stray/: has source files but no row in docs/ARCHITECTURE.md's rooms table",
                "low/b.h:2: includes high/ but low/ may include nothing else of ours"]
    if problems != expected:
        print("self-test failed: got", problems, "expected", expected)
        return 1
    print("self-test: the forbidden include and the missing room were both reported")
    return 0


def main(argv):
    if len(argv) > 1 and argv[1] == "--self-test":
        return self_test()
    repo = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems = check(repo)
    for p in problems:
        print(p)
    if problems:
        print(f"layering: {len(problems)} include(s) break docs/ARCHITECTURE.md's rooms table")
        return 1
    print(f"layering: every include follows the rooms table ({len(read_table(repo))} rooms)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
