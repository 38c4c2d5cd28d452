# SPDX-License-Identifier: Apache-2.0
"""The benchmark workloads, parsed from bench/workloads.txt (the one list; see its header)."""
import pathlib
import re

FILE = pathlib.Path(__file__).resolve().parent / "workloads.txt"
_DTYPES = {"f16": "float16", "bf16": "bfloat16"}


def _fields(text, names):
    """{'mb': 32, 'ic': 64, ...} from 'mb32ic64...': each name followed by its value."""
    out = {}
    for key, val in re.findall(r"([a-z]+)([0-9./]+)", text):
        if key not in names:
            raise ValueError(f"unknown field {key!r} in {text!r}")
        if "/" in val:
            num, den = val.split("/")
            out[key] = float(num) / float(den)
        else:
            out[key] = float(val) if "." in val else int(val)
    return out


def parse(kind, wid, spec):
    """One row as the tuple compare.py uses (see MAXPOOL / ROI below)."""
    parts = spec.split("_")
    flags = set(parts[2:])
    dims = _fields(parts[0], {"mb", "ic", "id", "ih", "iw"} if kind.endswith("3d") else {"mb", "ic", "ih", "iw"})
    if kind in ("unpool", "unpool3d"):  # the max pool whose indices the unpool consumes
        a = _fields(parts[1], {"kh", "sh", "ph"} if kind == "unpool" else {"k", "s", "p"})
        k, s, p = (a["kh"], a["sh"], a.get("ph", 0)) if kind == "unpool" else (a["k"], a["s"], a.get("p", 0))
        spatial = (dims["ih"], dims["iw"]) if kind == "unpool" else (dims["id"], dims["ih"], dims["iw"])
        return (wid, (dims["mb"], dims["ic"]) + spatial, k, s, p, "float32")
    dtype = next((_DTYPES[f] for f in flags if f in _DTYPES), "float32")
    if kind == "roialign":
        a = _fields(parts[1], {"r", "p", "s", "sr"})
        if flags - set(_DTYPES) - {"aligned", "fpn"}:
            raise ValueError(f"unknown flags {sorted(flags - set(_DTYPES) - {'aligned', 'fpn'})} in {spec!r}")
        return (wid, (dims["mb"], dims["ic"], dims["ih"], dims["iw"]), a["r"], a["p"], float(a["s"]), a["sr"],
                "aligned" in flags, "fpn" in flags, dtype)
    unknown = flags - set(_DTYPES) - {"ceil", "nhwc", "mask"}
    if unknown:
        raise ValueError(f"unknown flags {sorted(unknown)} in {spec!r}")
    shape = (dims.get("mb"), dims["ic"], dims["ih"], dims["iw"])
    if kind == "maxpool":
        a = _fields(parts[1], {"kh", "sh", "ph", "dh"})
        return (wid, shape, a["kh"], a["sh"], a.get("ph", 0), "ceil" in flags, a.get("dh", 1), dtype,
                "nhwc" in flags, "mask" in flags)
    if kind == "adaptive":
        a = _fields(parts[1], {"oh", "ow"})
        return (wid, shape, (a["oh"], a["ow"]), dtype)
    if kind == "pool3d":
        a = _fields(parts[1], {"k", "s", "p"})
        return (wid, (dims["mb"], dims["ic"], dims["id"], dims["ih"], dims["iw"]), a["k"], a["s"], a.get("p", 0),
                "ceil" in flags, dtype)
    if kind == "adaptive3d":
        a = _fields(parts[1], {"od", "oh", "ow"})
        return (wid, (dims["mb"], dims["ic"], dims["id"], dims["ih"], dims["iw"]), (a["od"], a["oh"], a["ow"]),
                dtype)
    if kind == "roi":
        a = _fields(parts[1], {"r", "p", "s"})
        return (wid, shape, a["r"], a["p"], float(a["s"]), dtype)
    raise ValueError(f"unknown workload kind {kind!r}")


def load(path=FILE):
    """Every row by its kind, the kinds in the order the file first names them."""
    rows = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            kind, wid, spec = line.split()
            rows.setdefault(kind, []).append(parse(kind, wid, spec))
    return rows


#: Every row by its kind (the file's first column), in the file's order: what compare.py runs.
ROWS = load()
# id, (N, C, H, W) (N None: rank-3), kernel, stride, pad, ceil, dilation, dtype, channels_last, mask
MAXPOOL = ROWS.get("maxpool", [])
# id, (N, C, H, W), R, pooled, scale, dtype
ROI = ROWS.get("roi", [])
# id, (N, C, H, W), (Hout, Wout), dtype
ADAPTIVE = ROWS.get("adaptive", [])
# id, (N, C, D, H, W), kernel, stride, pad, ceil, dtype
POOL3D = ROWS.get("pool3d", [])
# id, (N, C, D, H, W), (Dout, Hout, Wout), dtype
ADAPTIVE3D = ROWS.get("adaptive3d", [])
# id, the unpooled shape (N, C, [D,] H, W), the max pool's kernel, stride, pad, dtype
UNPOOL = ROWS.get("unpool", []) + ROWS.get("unpool3d", [])
# id, (N, C, H, W) (level 0 for _fpn), R, pooled, scale, sampling ratio, aligned, fpn, dtype
ROIALIGN = ROWS.get("roialign", [])
