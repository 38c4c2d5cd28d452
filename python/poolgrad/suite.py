# SPDX-License-Identifier: Apache-2.0
"""Golden suites: many cases from one case list, judged as a whole against a device's run.

A case list (CSV or JSON) has the same columns for every operator (CASE_COLUMNS). `write_goldens`
generates each case's inputs from its generator and seed, runs poolgrad, and writes

  OUT/manifest.json                 the cases, their attributes and every file's dtype and shape
  OUT/<case>/inputs/<name>.npy      what the device must be given
  OUT/<case>/golden/<name>.npy      poolgrad's outputs

A backward case takes its indices / mask / argmax from poolgrad's own forward on the same inputs
(the standard's forward-then-backward test), unless its `indices` column names a file.
`judge_suite` reads DEVICE/<case>/<name>.npy (or .bin in the manifest's dtype and shape) and
judges every output with a standard of standards.py; `write_report` writes JSON and Markdown.
`check_determinism` runs cases repeatedly at several thread counts and compares the bytes.
docs/golden.md describes the format with a worked example.

Why one module of about 610 lines: case lists, inputs, goldens, judging and the reports all read
and write the one case and manifest format defined here, and its path confinement (every path
under the directory the user gave) must hold for all of them.
"""
from __future__ import annotations

import csv
import hashlib
import json
import math
import os
import stat
from typing import Callable

import numpy as np

import poolgrad
from . import plots, standards
from .operators import SPECS
from .progress import Progress


# ---- the operators: the descriptors of operators.json -----------------------------------------
OPERATORS = SPECS

DEFAULT_ATTRS = {"kernel": None, "stride": None, "padding": [0], "dilation": [1], "ceil_mode": False,
                 "index_dtype": "int64", "output_size": None, "spatial_scale": 1.0, "input_shape": None,
                 "sampling_ratio": 0, "aligned": False, "mode": "avg"}


def run_operator(name: str, inputs: dict, attrs: dict, product: str | None = None) -> dict:
    """Runs operator `name` on named arrays; returns its outputs by name. `product` (default:
    Ascend910B for the A2/A3-only operators, else the library's own) holds for this call only."""
    op = OPERATORS[name]
    product = product or (op.products[0] if op.products != "all" else None)
    before = poolgrad.get_product()
    if product:
        poolgrad.set_product(product)
    try:
        a = {**DEFAULT_ATTRS, **attrs}
        outs = getattr(poolgrad, op.function)(*(inputs[n] for n in op.input_names),
                                              *(a[n] for n in op.attributes))
        return dict(zip(op.output_names, outs if isinstance(outs, tuple) else (outs,)))
    finally:
        if product:
            poolgrad.set_product(before)


# ---- case lists ------------------------------------------------------------------------------
CASE_COLUMNS = ("name", "op", "shape", "dtype", "kernel", "stride", "padding", "dilation", "ceil_mode",
                "output_size", "spatial_scale", "index_dtype", "rois", "product", "generator", "seed",
                "indices", "sampling_ratio", "aligned", "mode")
GENERATORS = ("normal", "uniform", "ties", "nan", "inf")
_INT_LISTS = ("shape", "kernel", "stride", "padding", "dilation", "output_size")


class CaseError(ValueError):
    pass


# ---- paths -----------------------------------------------------------------------------------
# Case lists and manifests come from other people. Every path the suites write, or read because a
# case list or a manifest names it, lies under the directory the user gave: a case name is one
# safe path component, and every path is resolved (symlinks followed) and checked to lie inside.
def check_name(name: str, where: str) -> str:
    """`name` as one path component: not empty, no separator, not '.' or '..', no NUL."""
    seps = [os.sep] + ([os.altsep] if os.altsep else []) + ["/", "\\"]
    if (not name or name in (".", "..") or "\0" in name or any(c in name for c in seps)
            or os.path.isabs(name)):
        raise CaseError(f"{where}: name {name!r} must be one path component "
                        "(no '/' or '\\', not '.' or '..', not absolute, no NUL)")
    return name


def inside(root: str, *parts: str) -> str:
    """root/parts with symlinks resolved, refused unless it lies under root (also resolved)."""
    base = os.path.realpath(root)
    path = os.path.realpath(os.path.join(base, *parts))
    if os.path.commonpath([base, path]) != base:
        raise CaseError(f"{os.path.join(root, *parts)}: resolves to {path}, outside {root}")
    return path


def _ints(v, col, case):
    if isinstance(v, (list, tuple)):
        return [int(t) for t in v]
    if isinstance(v, int):
        return [v]
    try:
        return [int(t) for t in str(v).replace(";", ",").replace("x", ",").split(",") if t.strip()]
    except ValueError:
        raise CaseError(f"case {case}: column {col} must be integers like 3 or 3,3, got {v!r}")


def normalize_case(raw: dict, row: int) -> dict:
    """One case with every column typed and defaulted; unknown columns and operators refused."""
    unknown = set(raw) - set(CASE_COLUMNS)
    if unknown:
        raise CaseError(f"case {row}: unknown columns {sorted(unknown)}; the columns are {', '.join(CASE_COLUMNS)}")
    c = {k: v for k, v in raw.items() if v not in (None, "")}
    name = str(c.get("name") or f"case{row:04d}")
    op = c.get("op")
    if op not in OPERATORS:
        raise CaseError(f"case {name}: op must be one of {', '.join(OPERATORS)}, got {op!r}")
    case = {"name": name, "op": op}
    for col in _INT_LISTS:
        if col in c:
            case[col] = _ints(c[col], col, name)
    if "shape" not in case:
        raise CaseError(f"case {name}: needs a shape (the input x's, e.g. 2,16,32,32)")
    fwd = OPERATORS[op].forward
    for col in OPERATORS[op].needs + (OPERATORS[fwd].needs if fwd else ()):
        if col != "input_shape" and col not in case:
            raise CaseError(f"case {name}: {op} needs the {col} column")
    case["dtype"] = str(c.get("dtype", "float32"))
    if case["dtype"] not in standards.FLOAT_DTYPES:
        raise CaseError(f"case {name}: dtype must be one of {', '.join(standards.FLOAT_DTYPES)}, got {case['dtype']!r}")
    for col in ("ceil_mode", "aligned"):
        flag = str(c.get(col, "false")).strip().lower()
        if flag not in ("true", "false", "1", "0"):
            raise CaseError(f"case {name}: {col} must be true or false, got {c[col]!r}")
        case[col] = flag in ("true", "1")
    try:
        case["sampling_ratio"] = int(c.get("sampling_ratio", 0))
    except ValueError:
        raise CaseError(f"case {name}: sampling_ratio must be an integer, got {c['sampling_ratio']!r}")
    case["mode"] = str(c.get("mode", "avg"))
    scale = [float(t) for t in str(c.get("spatial_scale", "1")).replace(";", ",").split(",")]
    case["spatial_scale"] = scale[0] if len(scale) == 1 else tuple(scale)
    case["index_dtype"] = str(c.get("index_dtype", "int64"))
    case["rois"] = int(c.get("rois", 8))
    case["product"] = c.get("product")
    case["generator"] = str(c.get("generator", "normal"))
    if case["generator"] not in GENERATORS:
        raise CaseError(f"case {name}: generator must be one of {', '.join(GENERATORS)}, got {case['generator']!r}")
    case["seed"] = int(c.get("seed", row))
    case["indices"] = str(c.get("indices", "forward"))
    return case


def read_cases(path: str) -> list:
    """Cases from a CSV file (a header row of CASE_COLUMNS, any subset) or a JSON list of objects."""
    if not os.path.exists(path):
        raise CaseError(f"{path}: no such file")
    if path.endswith(".json"):
        with open(path) as f:
            raw = json.load(f)
        if isinstance(raw, dict):
            raw = raw.get("cases", [])
    else:
        with open(path, newline="") as f:
            raw = [row for row in csv.DictReader(f) if any((v or "").strip() for v in row.values())]
    # Every row is checked before anything is written, and every bad row is named (its row number
    # in the file and its case name), not only the first.
    folder = os.path.dirname(os.path.abspath(path))
    cases, problems, seen = [], [], set()
    for i, r in enumerate(raw):
        try:
            c = normalize_case(r, i)
            check_name(c["name"], "case")
            if c["indices"] != "forward":  # a file beside the case list, never outside its folder
                c["indices"] = inside(folder, c["indices"])
            if c["name"] in seen:
                raise CaseError(f"case {c['name']}: the name appears twice")
            seen.add(c["name"])
            cases.append(c)
        except CaseError as e:
            problems.append(f"{path}: row {i + 1}: {e}")
    needs_bf16 = [c["name"] for c in cases if c.get("dtype") == "bfloat16"]
    if needs_bf16:  # an optional dependency named up front, not half-way through the suite
        try:
            import ml_dtypes  # noqa: F401
        except ImportError:
            problems.append(f"{path}: cases {', '.join(needs_bf16)} are bfloat16, which needs the "
                            "ml_dtypes package (pip install ml_dtypes)")
    if problems:
        raise CaseError(f"{len(problems)} problem(s) in the case list, nothing written:\n  "
                        + "\n  ".join(problems))
    return cases


def attrs_of(case: dict) -> dict:
    a = {k: case[k] for k in DEFAULT_ATTRS if k in case}
    a["input_shape"] = case["shape"]
    return a


# ---- inputs ----------------------------------------------------------------------------------
def _dtype(name: str):
    return poolgrad._bfloat16() if name == "bfloat16" else np.dtype(name)


def generate(shape, dtype: str, generator: str, rng: np.random.Generator) -> np.ndarray:
    """normal: N(0, 1); uniform: U[-1, 1); ties: integers in [-3, 3] (many equal maxima);
    nan / inf: normal with 5% NaN / +-inf."""
    if generator == "uniform":
        v = rng.uniform(-1.0, 1.0, shape)
    elif generator == "ties":
        v = rng.integers(-3, 4, shape).astype(np.float64)
    else:
        v = rng.standard_normal(shape)
    if generator in ("nan", "inf") and v.size:
        hit = rng.random(shape) < 0.05
        v[hit] = np.nan if generator == "nan" else np.where(rng.random(int(hit.sum())) < 0.5, np.inf, -np.inf)
    return v.astype(np.float32).astype(_dtype(dtype))


def make_rois(shape, count: int, scale, dtype: str, rng: np.random.Generator) -> np.ndarray:
    """`count` rows (batch, x1, y1, x2, y2) inside the image the feature map was taken from."""
    n, h, w = shape[0], shape[-2], shape[-1]
    sh, sw = scale if isinstance(scale, tuple) else (scale, scale)
    img_w, img_h = w / sw, h / sh
    x1, y1 = rng.uniform(0, img_w, count), rng.uniform(0, img_h, count)
    x2, y2 = x1 + rng.uniform(0, img_w - x1), y1 + rng.uniform(0, img_h - y1)
    b = rng.integers(0, max(n, 1), count)
    return np.stack([b, x1, y1, x2, y2], 1).astype(np.float32).astype(_dtype(dtype))


def make_unpool_indices(shape, output_size, dtype: str, rng: np.random.Generator) -> np.ndarray:
    """Indices for a max unpool of x's shape into output_size planes: distinct positions of each
    plane (as a max pool with non-overlapping windows makes them)."""
    k = len(output_size)
    planes, size, plane = int(np.prod(shape[:-k])), int(np.prod(shape[-k:])), int(np.prod(output_size))
    idx = np.stack([rng.permutation(plane)[:size] for _ in range(planes)]) if planes else np.zeros((0, size))
    return idx.reshape(shape).astype(dtype)


def consumes_indices(op) -> bool:
    """A max unpool (or its backward): indices are its own input, not a forward's output."""
    chain = [op] + ([OPERATORS[op.forward]] if op.forward else [])
    return any("indices" in o.input_names and o.forward is None for o in chain)


def make_inputs(case: dict) -> dict:
    """The case's inputs, the same for every run: x (or for roi-pool-backward the forward's x)
    from the generator and seed, rois, a max unpool's indices (distinct positions of each plane,
    or the file the `indices` column names), and for a backward its grad_output and the forward's
    index output (or the file)."""
    rng = np.random.default_rng(case["seed"])
    op = OPERATORS[case["op"]]
    x = generate(case["shape"], case["dtype"], case["generator"], rng)
    inputs = {"x": x}
    chain = set(op.input_names) | (set(OPERATORS[op.forward].input_names) if op.forward else set())
    if chain & {"rois", "boxes"}:
        rois = make_rois(case["shape"], case["rois"], case["spatial_scale"], case["dtype"], rng)
        if "batch_indices" in chain:  # ONNX: (K, 4) RoIs and their batch indices apart
            inputs["rois"], inputs["batch_indices"] = np.ascontiguousarray(rois[:, 1:]), rois[:, 0].astype(np.int32)
        else:
            inputs["boxes" if "boxes" in chain else "rois"] = rois
    if consumes_indices(op):
        if case["indices"] == "forward":
            size = case["output_size"] or []
            inputs["indices"] = make_unpool_indices(case["shape"], size, case["index_dtype"], rng)
        else:
            inputs["indices"] = _indices_file(case)
    if op.forward is None:
        return inputs
    fwd = run_operator(op.forward, inputs, attrs_of(case), case["product"])
    first = fwd[OPERATORS[op.forward].output_names[0]]
    gy_gen = "normal" if case["generator"] in ("nan", "inf") else case["generator"]
    inputs["grad_output"] = generate(first.shape, case["dtype"], gy_gen, rng)
    if op.index:
        inputs[op.index] = fwd[op.index] if case["indices"] == "forward" else _indices_file(case)
    return {k: inputs[k] for k in op.input_names}


def _indices_file(case: dict) -> np.ndarray:
    if not os.path.exists(case["indices"]):
        raise CaseError(f"case {case['name']}: indices file {case['indices']} does not exist")
    return load_npy(case["indices"])


def run_case(case: dict, inputs: dict) -> dict:
    return run_operator(case["op"], inputs, attrs_of(case), case["product"])


# ---- files -----------------------------------------------------------------------------------
def save_array(path_stem: str, a: np.ndarray, fmt: str = "npy") -> str:
    """Writes .npy (bfloat16 as np.save writes ml_dtypes' arrays) or raw .bin; returns the path."""
    a = np.ascontiguousarray(a)
    if fmt == "npy":
        np.save(path_stem + ".npy", a)
        return path_stem + ".npy"
    a.tofile(path_stem + ".bin")
    return path_stem + ".bin"


_NPY_MAGIC = b"\x93NUMPY"


def require_regular(path: str) -> None:
    """Refuses a path that is not a regular file (stat follows symlinks and never blocks)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        raise CaseError(f"{path}: cannot open ({e.strerror})")
    if not stat.S_ISREG(mode):
        raise CaseError(f"{path}: not a regular file (a FIFO, a device or a directory)")


def _open_regular(path: str):
    """Opens `path` for reading only if it is a regular file (after following symlinks): a FIFO, a
    device or a directory is refused at once, without blocking (O_NONBLOCK, then fstat on the
    descriptor that is read, so the check and the read are about the same file)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise CaseError(f"{path}: cannot open ({e.strerror})")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise CaseError(f"{path}: not a regular file (a FIFO, a device or a directory)")
    return os.fdopen(fd, "rb")


def load_npy(path: str) -> np.ndarray:
    """A .npy file; bfloat16 (2-byte void, as np.save writes ml_dtypes' arrays) as bfloat16."""
    with _open_regular(path) as f:
        if f.read(len(_NPY_MAGIC)) != _NPY_MAGIC:
            raise CaseError(f"{path}: not a .npy file (bad magic)")
        f.seek(0)
        try:
            a = np.load(f, allow_pickle=False)
        except Exception as e:  # noqa: BLE001 - any unreadable file is one clear line
            raise CaseError(f"{path}: not a readable .npy file ({e})")
    if a.dtype.kind == "V" and a.dtype.itemsize == 2:
        a = a.view(np.uint16).view(poolgrad._bfloat16())
    return a


def load_raw(path: str, dtype: str, shape) -> np.ndarray:
    """A raw file of `dtype` values (a NumPy dtype name, or bfloat16) in `shape`."""
    with _open_regular(path) as f:
        raw = np.frombuffer(f.read(), dtype=np.uint16 if dtype == "bfloat16" else dtype).copy()
    a = raw.view(poolgrad._bfloat16()) if dtype == "bfloat16" else raw
    count = math.prod(shape)
    if a.size != count:
        raise CaseError(f"{path}: holds {a.size} {dtype} values but shape {list(shape)} needs {count}")
    return a.reshape(shape)


def load_array(path: str, dtype: str | None = None, shape=None) -> np.ndarray:
    """.npy, or raw .bin read with the given dtype and shape (the manifest's)."""
    return load_npy(path) if path.endswith(".npy") else load_raw(path, dtype, shape)


def _entry(path: str, root: str, a: np.ndarray) -> dict:
    return {"file": os.path.relpath(path, root), "dtype": str(a.dtype), "shape": list(a.shape)}


def write_goldens(cases: list, out_dir: str, fmt: str = "npy", progress: Progress | None = None) -> dict:
    """Runs every case and writes its inputs, goldens and the manifest (always, also when a case
    fails: its "failed" list names each failed case and why); returns the manifest."""
    os.makedirs(out_dir, exist_ok=True)
    manifest = {"poolgrad": poolgrad.__version__, "format": fmt, "cases": [], "failed": []}
    for case in cases:
        check_name(case["name"], "case")
        try:  # a case the operator refuses is recorded and the suite goes on
            inputs = make_inputs(case)
            outputs = run_case(case, inputs)
        except ValueError as e:  # PoolgradError and CaseError are ValueErrors
            manifest["failed"].append({"name": case["name"], "op": case["op"], "error": str(e)})
            if progress:
                progress.step(case["name"])
            continue
        entry = {"case": case, "aclnn": OPERATORS[case["op"]].aclnn, "inputs": {}, "outputs": {}}
        for kind, arrays in (("inputs", inputs), ("golden", outputs)):
            d = inside(out_dir, case["name"], kind)
            os.makedirs(d, exist_ok=True)
            inside(out_dir, case["name"], kind)  # (not made through a symlink placed meanwhile)
            for name, a in arrays.items():
                a = np.asarray(a)
                stem = inside(out_dir, case["name"], kind, name)
                for ext in (".npy", ".bin"):  # a symlink named like the file must not lead out
                    inside(out_dir, case["name"], kind, name + ext)
                path = save_array(stem, a, fmt)
                entry["inputs" if kind == "inputs" else "outputs"][name] = _entry(path, out_dir, a)
        manifest["cases"].append(entry)
        if progress:
            progress.step(case["name"])
    with open(inside(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def read_manifest(golden_dir: str) -> dict:
    path = os.path.join(golden_dir, "manifest.json")
    if not os.path.exists(path):
        raise CaseError(f"{golden_dir}: no manifest.json (write goldens with poolgrad golden --suite)")
    with open(path) as f:
        return json.load(f)


def _device_file(device_dir: str, case: str, output: str):
    check_name(case, "manifest case")
    check_name(output, f"manifest case {case}: output")
    for ext in (".npy", ".bin"):
        p = inside(device_dir, case, output + ext)
        if os.path.exists(p):
            return p
    return None


# ---- judging ---------------------------------------------------------------------------------
def dtype_note(actual: np.ndarray, golden: np.ndarray) -> str | None:
    """A warning when the device's output is not in the golden's dtype (the judgement then runs on
    values converted to a common dtype, which can hide a wrong output dtype)."""
    if actual.dtype == golden.dtype:
        return None
    return f"the device output is {actual.dtype} but the golden is {golden.dtype}"


def judge_suite(golden_dir: str, device_dir: str, standard: str | None = None, third_dir: str | None = None,
                level: str = "L1", progress: Progress | None = None, plot_dir: str | None = None) -> list:
    """Judges every output of every case in the manifest. `standard` applies to the floating
    outputs (integer outputs are always binary); dual needs `third_dir` laid out as the device's.
    With `plot_dir`, each judged output's pictures (poolgrad/plots.py) are written there, their
    paths listed under the verdict's "plots". Returns one dict per case: name, op, passed,
    outputs (name -> verdict dict or error)."""
    manifest = read_manifest(golden_dir)
    if plot_dir is not None:
        plots.require()
    results = []
    for entry in manifest["cases"]:
        case = entry["case"]
        outs = {}
        for name, meta in entry["outputs"].items():
            golden = load_array(inside(golden_dir, meta["file"]), meta["dtype"], meta["shape"])
            found = _device_file(device_dir, case["name"], name)
            if found is None:
                outs[name] = {"passed": False, "reason": f"no device output {case['name']}/{name}.npy or .bin"}
                continue
            try:
                actual = load_array(found, meta["dtype"], meta["shape"])
                note = dtype_note(actual, golden)
                std = "binary" if standards.is_integer(meta["dtype"]) else standard
                third = None
                if std == "dual":
                    tp = _device_file(third_dir, case["name"], name) if third_dir else None
                    if tp is None:
                        raise CaseError(f"no third-party output {case['name']}/{name} (dual needs --third-party DIR)")
                    third = load_array(tp, meta["dtype"], meta["shape"])
                outs[name] = standards.judge(actual, golden, std, third, level).to_dict()
                if note:
                    outs[name]["warning"] = note
                if plot_dir is not None:
                    stem = plots.stem(f"{case['name']}-{name}")
                    inside(plot_dir, stem)  # the files go nowhere but plot_dir
                    outs[name]["plots"] = plots.write(actual, golden, plot_dir, stem, f"{case['name']}/{name}")
            except (ValueError, OSError) as e:
                outs[name] = {"passed": False, "reason": str(e)}
        results.append({"name": case["name"], "op": case["op"], "aclnn": entry["aclnn"],
                        "passed": all(o["passed"] for o in outs.values()), "outputs": outs})
        if progress:
            progress.step(case["name"])
    return results


def _severity(out: dict) -> tuple:
    m = out.get("metrics", {})
    return (out["passed"], -m.get("error_ratio", 1.0), -m.get("max_abs_error", math.inf))


def json_safe(v):
    """JSON has no inf or NaN: they are written as the strings "inf", "-inf", "nan" (NumPy
    scalars become Python numbers)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, dict):
        return {k: json_safe(x) for k, x in v.items()}
    if isinstance(v, list):
        return [json_safe(x) for x in v]
    return v


def _num(v) -> str:
    if isinstance(v, bool) or v is None:
        return "" if v is None else str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


REPORT_METRICS = ("max_abs_error", "max_rel_error", "mere", "mare", "rmse", "cosine_similarity",
                  "error_ratio", "nan_inf_mismatches", "one_thousandth_ratio", "five_thousandths_ratio")


def write_report(results: list, prefix: str, title: str = "poolgrad golden comparison") -> tuple:
    """PREFIX.json (every metric), PREFIX.md and PREFIX.csv (one row per output, failures and
    the worst first; the CSV for spreadsheets). Returns the three paths."""
    rows = [(r, name, out) for r in results for name, out in r["outputs"].items()]
    rows.sort(key=lambda t: _severity(t[2]))
    failed = [r["name"] for r in results if not r["passed"]]
    summary = {"cases": len(results), "passed": len(results) - len(failed), "failed": len(failed),
               "failed_cases": failed}
    os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
    with open(prefix + ".json", "w") as f:
        json.dump(json_safe({"summary": summary, "cases": results}), f, indent=1)
    lines = [f"# {title}", "",
             f"{summary['passed']} of {summary['cases']} cases passed, {summary['failed']} failed.", "",
             "| case | op | output | standard | dtype | verdict | " + " | ".join(REPORT_METRICS) + " | reason |",
             "|" + "---|" * (7 + len(REPORT_METRICS))]
    for r, name, out in rows:
        m = out.get("metrics", {})
        cells = [r["name"], r["op"], name, out.get("standard", ""), out.get("dtype", ""),
                 "PASS" if out["passed"] else "**FAIL**", *(_num(m.get(k)) for k in REPORT_METRICS),
                 out.get("reason", "").replace("|", "/")]
        lines.append("| " + " | ".join(cells) + " |")
    pictures = [(r, name, out["plots"]) for r, name, out in rows if out.get("plots")]
    if pictures:  # linked relative to the report, so the folder can be moved as a whole
        here = os.path.dirname(os.path.abspath(prefix))
        lines += ["", "## Plots", "", "Per output: the largest error of each plane, and the relative errors' histogram.", ""]
        for r, name, paths in pictures:
            links = ", ".join(f"[{os.path.basename(p).rsplit('-', 1)[1][:-4]}]({os.path.relpath(p, here)})"
                              for p in paths)
            lines.append(f"- {r['name']} / {name}: {links}")
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(prefix + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "op", "output", "standard", "dtype", "verdict", *REPORT_METRICS, "reason"])
        for r, name, out in rows:
            m = json_safe(out.get("metrics", {}))
            w.writerow([r["name"], r["op"], name, out.get("standard", ""), out.get("dtype", ""),
                        "PASS" if out["passed"] else "FAIL", *(m.get(k, "") for k in REPORT_METRICS),
                        out.get("reason", "")])
    return prefix + ".json", prefix + ".md", prefix + ".csv"


# ---- device repeatability ---------------------------------------------------------------------
def check_repeatability(golden_dir: str, run_dirs: list) -> list:
    """CANN's standard asks a device to give the same bits over repeated runs: for every output of
    every case of the goldens' manifest, the files of each run (laid out as a device's directory,
    read with the manifest's dtype and shape) against the first run's, byte for byte. Returns one
    dict per case: name, op, passed, runs, and the first difference (run, output, position)."""
    manifest = read_manifest(golden_dir)
    results = []
    for entry in manifest["cases"]:
        case, first_difference = entry["case"], None
        for name, meta in entry["outputs"].items():
            arrays = []
            for run in run_dirs:
                found = _device_file(run, case["name"], name)
                if found is None:
                    first_difference = first_difference or f"{run}: no output {case['name']}/{name}"
                    break
                arrays.append(np.ascontiguousarray(load_array(found, meta["dtype"], meta["shape"])))
            for i, a in enumerate(arrays[1:], 1):
                if first_difference:
                    break
                b0, b = arrays[0].view(np.uint8).reshape(-1), a.view(np.uint8).reshape(-1)
                if b0.shape != b.shape or not np.array_equal(b0, b):
                    diff = np.flatnonzero(b0 != b) if b0.shape == b.shape else [0]
                    k = int(diff[0]) // max(1, arrays[0].itemsize)
                    pos = [int(x) for x in np.unravel_index(k, arrays[0].shape)] if arrays[0].size else []
                    first_difference = f"{run_dirs[i]}: {name} differs from {run_dirs[0]} at {pos}"
        results.append({"name": case["name"], "op": case["op"], "passed": first_difference is None,
                        "runs": len(run_dirs), "first_difference": first_difference})
    return results


# ---- determinism -----------------------------------------------------------------------------
def digest(outputs: dict) -> str:
    h = hashlib.sha256()
    for name in sorted(outputs):
        a = np.ascontiguousarray(np.asarray(outputs[name]))
        h.update(name.encode() + str(a.dtype).encode() + str(a.shape).encode())
        h.update(a.view(np.uint8).tobytes())
    return h.hexdigest()


def check_determinism(cases: list, runs: int = 3, threads=(1, 2), run: Callable | None = None,
                      progress: Progress | None = None) -> list:
    """Runs every case `runs` times at each thread count and compares the outputs' bytes with the
    first run's. `run(case, inputs) -> outputs` defaults to poolgrad's operator (a stand-in can be
    given to check the checker). Returns one dict per case: name, op, passed, runs, digests."""
    run = run or run_case
    before = poolgrad.get_num_threads()
    results = []
    try:
        for case in cases:
            inputs = make_inputs(case)
            seen, first_diff = {}, None
            for t in threads:
                poolgrad.set_num_threads(t)
                for k in range(runs):
                    d = digest(run(case, inputs))
                    seen.setdefault(d, f"threads={t} run={k}")
                    if len(seen) > 1 and first_diff is None:
                        first_diff = f"threads={t} run={k} differs from {next(iter(seen.values()))}"
            results.append({"name": case["name"], "op": case["op"], "passed": len(seen) == 1,
                            "runs": runs * len(threads), "threads": list(threads),
                            "distinct_outputs": len(seen), "first_difference": first_diff or ""})
            if progress:
                progress.step(case["name"])
    finally:
        poolgrad.set_num_threads(before)
    return results
