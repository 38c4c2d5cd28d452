#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The ACL surface real programs call, against what poolgrad exports.

  acl_surface.py scan REPO...            count the acl*/aclrt* functions that CANN's example
                                         programs and docs call (REPO: a checkout or a bare git
                                         mirror of hicann/ops-nn, ops-cv); prints the list kept in
                                         tests/acl_surface.txt
  acl_surface.py check LIST LIB INCLUDE  every function of LIST is exported by LIB (nm -D) and
                                         declared in a header under INCLUDE; exit 1 otherwise

Only the names of the functions and their counts are kept, never CANN's code. Operator APIs
(aclnn*) are not counted: a program that calls another operator will not link against poolgrad
alone, but its shared set-up code must.
"""
import collections
import os
import re
import subprocess
import sys

CALL = re.compile(r"\b(acl(?:rt)?[A-Z][A-Za-z0-9_]*)\s*\(")
# Names the scan finds that are not ACL functions: types in casts, the examples' own helpers, a
# misspelling in one example (CANN's function is aclDestroyAclOpExecutor).
NOT_FUNCTIONS = {"aclError", "aclTensor", "aclTensors", "aclCreateTensorP", "aclCreateIntArrayP",
                 "aclDestroyOpExecutor"}


def _files(repo):
    """(path, text) of the example programs and docs of a checkout or a bare mirror."""
    keep = re.compile(r"(examples?/.*\.(c|cc|cpp|h)$)|(docs/.*\.md$)")
    if os.path.isdir(os.path.join(repo, ".git")) or not os.path.isdir(os.path.join(repo, "objects")):
        for root, _, names in os.walk(repo):
            for n in names:
                p = os.path.join(root, n)
                if keep.search(os.path.relpath(p, repo)):
                    with open(p, errors="replace") as f:
                        yield p, f.read()
        return
    names = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD"],
                           capture_output=True, text=True, check=True).stdout.split("\n")
    for n in names:
        if keep.search(n):
            text = subprocess.run(["git", "-C", repo, "show", f"HEAD:{n}"], capture_output=True,
                                  text=True, errors="replace").stdout
            yield n, text


def scan(repos):
    counts = collections.Counter()
    for repo in repos:
        for _, text in _files(repo):
            names = {m for m in CALL.findall(text) if not m.startswith("aclnn")}
            counts.update(names - NOT_FUNCTIONS)
    print("# The acl*/aclrt* functions CANN's example programs and docs call, with the number of")
    print("# files calling each (scripts/acl_surface.py scan over hicann/ops-nn and ops-cv).")
    for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{name} {n}")


def check(list_path, lib, include):
    wanted = [line.split()[0] for line in open(list_path) if line.strip() and not line.startswith("#")]
    nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True)
    exported = {line.split()[-1] for line in nm.stdout.splitlines() if line.strip()}
    headers = ""
    for root, _, names in os.walk(include):
        for n in names:
            if n.endswith(".h"):
                with open(os.path.join(root, n)) as f:
                    headers += f.read()
    missing = [w for w in wanted if w not in exported]
    undeclared = [w for w in wanted if not re.search(rf"\b{w}\s*\(", headers)]
    for w in missing:
        print(f"not exported by {os.path.basename(lib)}: {w}")
    for w in undeclared:
        print(f"not declared in a header: {w}")
    print(f"acl surface: {len(wanted)} functions, {len(missing)} not exported, "
          f"{len(undeclared)} not declared")
    return 1 if missing or undeclared else 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "scan":
        scan(sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:]))
    else:
        sys.exit(__doc__)
