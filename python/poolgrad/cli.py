# SPDX-License-Identifier: Apache-2.0
"""The `poolgrad` command: golden data for CANN operator developers, judged by CANN's standards.

  poolgrad golden OP [options]            run an operator on .npy/.bin inputs, write every output
  poolgrad golden --suite CASES --out-dir  inputs, goldens and a manifest for a whole case list
  poolgrad compare DEVICE GOLDEN           judge by CANN's precision standards (exit 1 on FAIL)
  poolgrad compare --suite DEVICE GOLDENS  judge a device's run of a suite; JSON, Markdown, CSV report
  poolgrad check-determinism CASES         bitwise identical across runs and thread counts?
  poolgrad repeatability GOLDENS RUN...    repeated device runs of a suite bitwise identical?

Inputs are .npy files, or raw .bin files given as PATH:DTYPE:SHAPE (e.g. x.bin:float16:1,3,8,8),
as CANN's test assets are. Errors print one line and exit 2; no traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

import poolgrad
from . import plots, standards, suite
from .progress import Progress

# The dtypes a raw file may hold.
DTYPES = ("float32", "float16", "bfloat16", "int32", "int64", "float64", "int8", "uint8")


class CliError(Exception):
    pass


def load(spec: str):
    """Returns (array, dtype name): a .npy file, or a raw one given as PATH:DTYPE:SHAPE. bfloat16
    data comes back as an ml_dtypes.bfloat16 array."""
    path, dtype, shape = spec, None, None
    if not os.path.exists(spec) and spec.count(":") >= 2:
        path, dtype, shape_s = spec.rsplit(":", 2)
        try:
            shape = tuple(int(v) for v in shape_s.split(",") if v != "")
        except ValueError:
            raise CliError(f"{spec}: SHAPE must be comma-separated integers, e.g. x.bin:float32:2,3,8,8")
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")
    suite.require_regular(path)
    if path.endswith(".npy") and dtype is None:
        a = suite.load_npy(path)
        return a, str(a.dtype)
    if dtype is None:
        raise CliError(f"{path}: a raw file needs its dtype and shape: {path}:DTYPE:SHAPE (e.g. {path}:float32:2,3,8,8)")
    if dtype not in DTYPES:
        raise CliError(f"{path}: unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}")
    return suite.load_raw(path, dtype, shape), dtype


def _ints(s: str):
    try:
        return [int(v) for v in s.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {s!r}")


def _floats(s: str):
    try:
        v = [float(t) for t in s.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a float or h,w, got {s!r}")
    return v[0] if len(v) == 1 else tuple(v)


# The CLI option that carries each operator input.
INPUT_OPTION = {"x": "input", "grad_output": "grad_output", "indices": "indices", "mask": "mask",
                "rois": "rois", "argmax": "argmax", "boxes": "boxes", "batch_indices": "batch_indices"}


def _attrs(args) -> dict:
    return {"kernel": args.kernel, "stride": args.stride, "padding": args.padding,
            "dilation": args.dilation, "ceil_mode": args.ceil, "index_dtype": args.index_dtype,
            "output_size": args.output_size, "spatial_scale": args.spatial_scale,
            "input_shape": args.input_shape, "sampling_ratio": args.sampling_ratio,
            "aligned": args.aligned, "mode": args.mode}


def golden(args) -> int:
    if args.suite:
        cases = suite.read_cases(args.suite)
        manifest = suite.write_goldens(cases, args.out_dir, args.out_format,
                                       Progress(len(cases), "golden"))
        outputs = sum(len(c["outputs"]) for c in manifest["cases"])
        print(f"wrote {len(manifest['cases'])} cases ({outputs} golden outputs) and "
              f"{os.path.join(args.out_dir, 'manifest.json')}")
        for f in manifest["failed"]:
            print(f"FAIL {f['name']} ({f['op']}): {f['error']}")
        if manifest["failed"]:
            print(f"{len(manifest['failed'])} of {len(cases)} cases failed: "
                  + ", ".join(f["name"] for f in manifest["failed"]))
            return 1
        return 0
    if args.op is None:
        raise CliError("golden needs an operator (or --suite CASES)")
    op = suite.OPERATORS[args.op]
    options = [INPUT_OPTION[name] for name in op.input_names] + list(op.needs)
    missing = [m for m in options if getattr(args, m) is None]
    if missing:
        raise CliError(f"{args.op} needs " + ", ".join("--" + m.replace("_", "-") for m in missing))
    os.makedirs(args.out_dir, exist_ok=True)
    inputs = {name: load(getattr(args, INPUT_OPTION[name]))[0] for name in op.input_names}
    outs = suite.run_operator(op.name, inputs, _attrs(args), args.product)
    for name, a in outs.items():
        path = suite.save_array(os.path.join(args.out_dir, name), np.asarray(a), args.out_format)
        print(f"wrote {path} {a.dtype} {list(a.shape)}")
    return 0


def _num(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def largest_errors(actual, golden, count: int = 5) -> list:
    """The `count` elements with the largest |device - golden| (a NaN or infinity on one side only
    first), each {"at": [i, ...], "device": x, "golden": y, "error": e}; none where they agree."""
    a, g = np.asarray(actual), np.asarray(golden)
    if a.dtype.kind in "iub" and g.dtype.kind in "iub":
        err = np.abs(a.astype(np.float64) - g.astype(np.float64))
    else:
        af, gf = a.astype(np.float64), g.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.abs(af - gf)
        same = (af == gf) | (np.isnan(af) & np.isnan(gf))
        err = np.where(same, 0.0, np.where(np.isfinite(err), err, np.inf))
    flat = err.reshape(-1)
    order = np.argsort(-flat, kind="stable")[:count]
    rows = []
    for k in order:
        if not flat[k] > 0:
            break
        pos = np.unravel_index(int(k), a.shape)
        rows.append({"at": [int(i) for i in pos], "device": a[pos].item(), "golden": g[pos].item(),
                     "error": float(flat[k])})
    return rows


def _print_verdict(v: standards.Verdict, actual, golden) -> None:
    m = v.metrics
    integers = np.asarray(actual).dtype.kind in "iub" and np.asarray(golden).dtype.kind in "iub"
    if integers:  # values compare exactly: float metrics say nothing
        print(f"  mismatches {m.get('mismatches', 0)} of {m['elements']}")
    else:
        print("  " + ", ".join(f"{k.replace('_', ' ')} {_num(m[k])}" for k in suite.REPORT_METRICS))
        extra = [k for k in m if k not in suite.REPORT_METRICS and k != "elements"]
        if extra:
            print("  " + ", ".join(f"{k.replace('_', ' ')} {_num(m[k])}" for k in extra))
    if not v.passed:
        if not integers:
            print(f"mismatches {m.get('mismatches', round(m['error_ratio'] * m['elements']))}")
        for e in largest_errors(actual, golden):
            print(f"largest error at {e['at']}: device {_num(e['device'])}, golden {_num(e['golden'])}")
    print(("PASS" if v.passed else "FAIL") + (f": {v.reason}" if v.reason else ""))


def _suite_dirs(args) -> tuple:
    """(device, golden) of `compare --suite DEVICE GOLDEN`; the old order (golden first) still works,
    recognised by which directory holds the goldens' manifest.json, with a deprecation message."""
    device, golden = args.a, args.b
    a_golden = os.path.exists(os.path.join(args.a, "manifest.json"))
    b_golden = os.path.exists(os.path.join(args.b, "manifest.json"))
    if a_golden and not b_golden:
        print("warning: `compare --suite GOLDEN DEVICE` is deprecated: give the device's directory first, "
              "as in a single compare (`compare --suite DEVICE GOLDEN`)", file=sys.stderr)
        device, golden = args.b, args.a
    return device, golden


def compare(args) -> int:
    if args.plot is not None:
        try:
            plots.require()  # before any work: a missing optional dependency is named up front
        except RuntimeError as e:
            raise CliError(str(e))
    if args.suite:
        device_dir, golden_dir = _suite_dirs(args)
        prefix = args.report or os.path.join(device_dir, "poolgrad-report")
        plot_dir = None if args.plot is None else (args.plot or prefix + "-plots")
        results = suite.judge_suite(golden_dir, device_dir, args.standard, args.third_party, args.level,
                                    Progress(len(suite.read_manifest(golden_dir)["cases"]), "compare"),
                                    plot_dir)
        paths = suite.write_report(results, prefix)
        failed = [r for r in results if not r["passed"]]
        print(f"{len(results) - len(failed)} of {len(results)} cases passed; report: {', '.join(paths)}")
        for r in results:
            for n, o in r["outputs"].items():
                if o.get("warning"):
                    print(f"warning: {r['name']}/{n}: {o['warning']}")
        for r in failed:
            bad = [f"{n}: {o['reason']}" for n, o in r["outputs"].items() if not o["passed"]]
            print(f"FAIL {r['name']} ({r['op']}): " + "; ".join(bad))
        return 1 if failed else 0
    a, da = load(args.a)
    b, db = load(args.b)
    third = load(args.third_party)[0] if args.third_party else None
    if a.shape != b.shape:
        raise CliError(f"shapes differ: {args.a} is {list(a.shape)}, {args.b} is {list(b.shape)}")
    try:
        v = standards.judge(a, b, args.standard, third, args.level, args.rtol, args.atol, args.error_cap)
    except ValueError as e:
        raise CliError(str(e))
    note = suite.dtype_note(np.asarray(a), np.asarray(b))
    if note:
        print(f"warning: {note}")
    pictures = []
    if args.plot is not None:  # named after the device's file, written only into the given folder
        device = os.path.basename(args.a.split(":")[0])
        pictures = plots.write(a, b, args.plot or ".", plots.stem(os.path.splitext(device)[0]), device)
    if args.json:
        out = {"device": args.a, "golden": args.b, "elements": int(a.size), "dtype": str(da),
               "golden_dtype": str(db), "standard": v.standard, "passed": bool(v.passed),
               "reason": v.reason, "metrics": suite.json_safe(v.metrics),
               "largest_errors": suite.json_safe(largest_errors(a, b)) if not v.passed else [],
               "warning": note, "plots": pictures}
        print(json.dumps(out, indent=1))
        return 0 if v.passed else 1
    print(f"compare {args.a} vs {args.b}: {a.size} elements, dtype {da} (the device's; golden {db}), "
          f"standard {v.standard}")
    _print_verdict(v, a, b)
    if pictures:
        print("plots: " + ", ".join(pictures))
    return 0 if v.passed else 1


def repeatability(args) -> int:
    if len(args.runs) < 2:
        raise CliError("repeatability needs at least two device runs")
    results = suite.check_repeatability(args.goldens, args.runs)
    for r in results:
        print(f"{'PASS' if r['passed'] else 'FAIL'} {r['name']} ({r['op']}): "
              + ("identical" if r["passed"] else r["first_difference"]))
    failed = sum(not r["passed"] for r in results)
    print(f"{len(results) - failed} of {len(results)} cases bitwise identical across {len(args.runs)} device runs")
    return 1 if failed else 0


def check_determinism(args) -> int:
    cases = suite.read_cases(args.cases)
    threads = args.threads or [1, 2]
    results = suite.check_determinism(cases, args.runs, threads, progress=Progress(len(cases), "determinism"))
    for r in results:
        print(f"{'PASS' if r['passed'] else 'FAIL'} {r['name']} ({r['op']}): {r['runs']} runs at threads "
              f"{','.join(map(str, r['threads']))}, {r['distinct_outputs']} distinct output(s)"
              + (f"; {r['first_difference']}" if r["first_difference"] else ""))
    if args.report:
        with open(args.report, "w") as f:
            json.dump(results, f, indent=1)
    failed = sum(not r["passed"] for r in results)
    print(f"{len(results) - failed} of {len(results)} cases bitwise identical across runs and thread counts")
    return 1 if failed else 0


EXAMPLES = """examples:
  poolgrad golden max-pool2d --input x.npy --kernel 3 --stride 2 --padding 1 --out-dir golden/
  poolgrad golden max-pool2d-backward --grad-output gy.bin:float16:1,3,4,4 --input x.bin:float16:1,3,8,8 \\
      --indices idx.npy --kernel 2 --out-dir golden/ --out-format bin
  poolgrad golden max-pool3d --input video.npy --kernel 3 --stride 2 --padding 1 --out-dir golden/
  poolgrad golden roi-pool --input x.npy --rois rois.npy --output-size 7 --spatial-scale 0.0625 --out-dir golden/
  poolgrad golden roi-pool-backward --grad-output gy.npy --rois rois.npy --argmax argmax.npy \\
      --input-shape 2,256,38,50 --out-dir golden/
  poolgrad compare npu_out.bin:float16:2,3,4,4 golden/out.npy --standard experimental
  poolgrad golden --suite cases.csv --out-dir goldens/
  poolgrad compare --suite device/ goldens/ --report device/report
  poolgrad check-determinism cases.csv --runs 3 --threads 1,2,4
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="poolgrad", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXAMPLES)
    p.add_argument("--version", action="version", version=f"poolgrad {poolgrad.__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("golden", help="run an operator (or a suite of cases) and write its outputs",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXAMPLES)
    g.add_argument("op", nargs="?", choices=list(suite.OPERATORS),
                   help="; ".join(f"{o.name}: {o.aclnn}" for o in suite.OPERATORS.values())
                   + " (the Mask pair and adaptive-max-pool2d-backward on A2/A3 products)")
    g.add_argument("--suite", help="a case list (CSV or JSON, docs/golden.md): write inputs, goldens and "
                                   "manifest.json for every case into --out-dir")
    g.add_argument("--input", help="x (.npy, or PATH:DTYPE:SHAPE for .bin); for max-pool2d-backward the "
                                   "forward input (only its shape and dtype are used)")
    g.add_argument("--grad-output", help="the gradient of the forward output (backward ops)")
    g.add_argument("--indices", help="max-pool2d-backward: the forward's indices (int32 or int64)")
    g.add_argument("--rois", help="roi-pool ops: (R, 5) rows (batch_index, x1, y1, x2, y2); roi-align-onnx: "
                                  "(K, 4) rows (x1, y1, x2, y2)")
    g.add_argument("--boxes", help="roi-align ops: (K, 5) rows (batch_index, x1, y1, x2, y2)")
    g.add_argument("--batch-indices", help="roi-align-onnx: (K,) int32 batch indices")
    g.add_argument("--mask", help="max-pool2d-mask-backward: the forward's int8 mask")
    g.add_argument("--product", default=None, choices=["Ascend950", "Ascend910B", "Ascend910_93"],
                   help="the product profile: the Mask ops and adaptive-max-pool2d-backward (A2/A3 "
                        "only, default Ascend910B) and every other op (default: POOLGRAD_SOC, else "
                        "Ascend950, whose 3-D indices may be int64)")
    g.add_argument("--argmax", help="roi-pool-backward: the forward's argmax (int32)")
    g.add_argument("--kernel", type=_ints, default=None,
                   help="max pool: kernel size, k or kh,kw (3-D: k or kd,kh,kw; the same for the "
                        "other attributes)")
    g.add_argument("--stride", type=_ints, default=None, help="max pool: stride (default: the kernel)")
    g.add_argument("--padding", type=_ints, default=[0], help="max pool: padding, p or ph,pw (default 0)")
    g.add_argument("--dilation", type=_ints, default=[1], help="max pool: dilation (default 1)")
    g.add_argument("--ceil", action="store_true", help="max pool: ceil mode")
    g.add_argument("--index-dtype", choices=["int32", "int64"], default="int64",
                   help="max-pool2d, max-pool3d, adaptive-max-pool3d: dtype of the indices written "
                        "(default int64; A2/A3 products take int32 only for the 3-D ops)")
    g.add_argument("--output-size", type=_ints, default=None,
                   help="roi-pool, roi-align ops: pooled size, p or ph,pw; adaptive-max-pool2d: Hout,Wout; "
                        "adaptive-max-pool3d: Dout,Hout,Wout")
    g.add_argument("--spatial-scale", type=_floats, default=1.0,
                   help="roi ops: spatial scale, s or sh,sw (default 1.0)")
    g.add_argument("--input-shape", type=_ints, default=None,
                   help="roi-pool-backward, roi-align-backward: N,C,H,W of x")
    g.add_argument("--sampling-ratio", type=int, default=0,
                   help="roi-align ops: samples per bin side (default 0: ceil(box side / output side))")
    g.add_argument("--aligned", action="store_true", help="roi-align, roi-align-backward: the half-pixel shift")
    g.add_argument("--mode", choices=["avg", "max"], default="avg", help="roi-align-onnx: pooling mode")
    g.add_argument("--out-dir", required=True, help="directory for the outputs")
    g.add_argument("--out-format", choices=["npy", "bin"], default="npy", help="output files (default npy)")
    g.add_argument("--threads", type=int, default=0, help="threads (default: all cores)")
    c = sub.add_parser("compare", help="judge a device output against a golden by CANN's precision standards",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXAMPLES)
    c.add_argument("a", help="the device's output (.npy or PATH:DTYPE:SHAPE); with --suite the device's directory")
    c.add_argument("b", help="the golden (.npy or PATH:DTYPE:SHAPE); with --suite the golden directory")
    c.add_argument("--suite", action="store_true",
                   help="judge every case of a golden directory against DEVICE_DIR/<case>/<output>.npy|.bin "
                        "and write a JSON and a Markdown report")
    c.add_argument("--standard", choices=standards.STANDARDS, default=None,
                   help="mixed (floating outputs' default), binary (integer outputs' default, and always "
                        "for them in a suite), experimental (MERE/MARE), dual (against --third-party), ulp "
                        "(msprobe's ULP standard: float16/bfloat16/float32)")
    c.add_argument("--third-party", help="dual: the third party's result (with --suite: its directory)")
    c.add_argument("--level", choices=list(standards.LEVELS), default="L1",
                   help="dual: the ratio limits (L0 10/2/2, L1 5/1.5/1.5, L2 2/1.2/1.2; default L1)")
    c.add_argument("--atol", type=float, default=None, help="mixed: absolute tolerance (default per dtype)")
    c.add_argument("--rtol", type=float, default=None, help="mixed: relative tolerance (default per dtype)")
    c.add_argument("--error-cap", type=float, default=None,
                   help="mixed: the largest error any element may have (default per dtype, or 32 ulp)")
    c.add_argument("--report", help="--suite: report path prefix (default DEVICE_DIR/poolgrad-report)")
    c.add_argument("--json", action="store_true", help="a single compare: print the verdict as JSON")
    c.add_argument("--plot", nargs="?", const="", default=None, metavar="DIR",
                   help="write PNG pictures of the errors (a heatmap of each plane's largest error, a "
                        "histogram of relative errors) into DIR (default: the current directory; with "
                        "--suite, REPORT-plots, linked from the Markdown report); needs matplotlib")
    rp = sub.add_parser("repeatability", help="compare repeated device runs of one suite bit for bit "
                        "(CANN's standard asks for repeated runs)")
    rp.add_argument("goldens", help="the goldens' directory (its manifest.json names the outputs)")
    rp.add_argument("runs", nargs="+", help="two or more device directories, laid out as for compare --suite")
    d = sub.add_parser("check-determinism", help="run cases repeatedly at several thread counts; "
                                                 "exit 1 unless the outputs are bitwise identical")
    d.add_argument("cases", help="a case list (CSV or JSON, docs/golden.md)")
    d.add_argument("--runs", type=int, default=3, help="runs per thread count (default 3)")
    d.add_argument("--threads", type=_ints, default=None, help="thread counts (default 1,2)")
    d.add_argument("--report", help="write the results as JSON to this file")
    sub.add_parser("ttk-plugin", help="print the path of poolgrad's plugin for CANN's operator test kit")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.command == "golden":
            if args.threads:
                poolgrad.set_num_threads(args.threads)
            return golden(args)
        if args.command == "check-determinism":
            return check_determinism(args)
        if args.command == "repeatability":
            return repeatability(args)
        if args.command == "ttk-plugin":
            from . import ttk_plugin
            print(ttk_plugin.__file__)
            return 0
        return compare(args)
    except (CliError, suite.CaseError, poolgrad.PoolgradError) as e:
        print(f"poolgrad: error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - one clear line, never a traceback
        print(f"poolgrad: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
