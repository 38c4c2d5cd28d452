"""The `poolgrad` command: golden data for CANN operator developers, and a dtype-aware compare.

  poolgrad golden OP [options]   run an operator on .npy/.bin inputs and write every output
  poolgrad compare A B [options] compare two arrays; exit 1 past the tolerance

Inputs are .npy files, or raw .bin files given as PATH:DTYPE:SHAPE (e.g. x.bin:float16:1,3,8,8),
as CANN's test assets are. Errors print one line and exit 2; no traceback.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import poolgrad

DTYPES = {"float32": np.float32, "float16": np.float16, "bfloat16": "bfloat16", "int32": np.int32,
          "int64": np.int64, "float64": np.float64, "int8": np.int8, "uint8": np.uint8}
# Default tolerances per dtype (atol, rtol); integers must match exactly.
TOLERANCE = {"float32": (1e-6, 1e-5), "float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2),
             "float64": (1e-12, 1e-12)}


class CliError(Exception):
    pass


def _bf16(raw: np.ndarray) -> np.ndarray:
    """Raw bfloat16 bits (uint16 or 2-byte void) as an ml_dtypes.bfloat16 array."""
    try:
        import ml_dtypes
    except ImportError:
        raise CliError("bfloat16 data needs the ml_dtypes package (pip install ml_dtypes)")
    return raw.view(np.uint16).view(ml_dtypes.bfloat16)


def load(spec: str):
    """Returns (array, dtype name). bfloat16 data (.bin, or .npy as np.save writes ml_dtypes'
    bfloat16: 2-byte void) comes back as an ml_dtypes.bfloat16 array."""
    path, dtype, shape = spec, None, None
    if not os.path.exists(spec) and spec.count(":") >= 2:
        path, dtype, shape_s = spec.rsplit(":", 2)
        try:
            shape = tuple(int(v) for v in shape_s.split(",") if v != "")
        except ValueError:
            raise CliError(f"{spec}: SHAPE must be comma-separated integers, e.g. x.bin:float32:2,3,8,8")
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")
    if path.endswith(".npy") and dtype is None:
        try:
            a = np.load(path, allow_pickle=False)
        except Exception as e:  # noqa: BLE001 - any unreadable file is one clear line
            raise CliError(f"{path}: not a readable .npy file ({e})")
        if a.dtype.kind == "V" and a.dtype.itemsize == 2:
            a = _bf16(a)
        return a, str(a.dtype)
    if dtype is None:
        raise CliError(f"{path}: a raw file needs its dtype and shape: {path}:DTYPE:SHAPE (e.g. {path}:float32:2,3,8,8)")
    if dtype not in DTYPES:
        raise CliError(f"{path}: unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}")
    raw_dtype = np.uint16 if dtype == "bfloat16" else DTYPES[dtype]
    data = np.fromfile(path, dtype=raw_dtype)
    count = int(np.prod(shape)) if shape else 1
    if data.size != count:
        raise CliError(f"{path}: holds {data.size} {dtype} values but shape {shape} needs {count}")
    data = data.reshape(shape)
    return (_bf16(data) if dtype == "bfloat16" else data), dtype


def save(path: str, a: np.ndarray, fmt: str) -> str:
    if fmt == "npy":
        path += ".npy"
        np.save(path, a)
    else:
        path += ".bin"
        a.tofile(path)
    return path


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


# Ops CANN documents for Atlas A2/A3 only: their default profile is Ascend910B.
A2_ONLY = {"max-pool2d-mask", "max-pool2d-mask-backward", "adaptive-max-pool2d-backward"}


def golden(args) -> int:
    os.makedirs(args.out_dir, exist_ok=True)
    product = args.product or ("Ascend910B" if args.op in A2_ONLY else None)
    if product:  # otherwise the library's own (POOLGRAD_SOC, else Ascend950)
        poolgrad.set_product(product)
    outs = {}
    if args.op == "max-pool2d":
        x, _ = load(args.input)
        out, idx = poolgrad.max_pool2d_with_indices(x, args.kernel, args.stride, args.padding,
                                                    args.dilation, args.ceil, args.index_dtype)
        outs = {"out": out, "indices": idx}
    elif args.op == "max-pool2d-backward":
        gy, _ = load(args.grad_output)
        x, _ = load(args.input)
        idx, _ = load(args.indices)
        outs = {"grad_input": poolgrad.max_pool2d_with_indices_backward(
            gy, x, idx, args.kernel, args.stride, args.padding, args.dilation, args.ceil)}
    elif args.op == "max-pool2d-mask":
        x, _ = load(args.input)
        out, mask = poolgrad.max_pool2d_with_mask(x, args.kernel, args.stride, args.padding,
                                                  args.dilation, args.ceil)
        outs = {"out": out, "mask": mask}
    elif args.op == "max-pool2d-mask-backward":
        gy, _ = load(args.grad_output)
        x, _ = load(args.input)
        mask, _ = load(args.mask)
        outs = {"grad_input": poolgrad.max_pool2d_with_mask_backward(
            gy, x, mask, args.kernel, args.stride, args.padding, args.dilation, args.ceil)}
    elif args.op == "adaptive-max-pool2d":
        x, _ = load(args.input)
        out, idx = poolgrad.adaptive_max_pool2d(x, args.output_size)
        outs = {"out": out, "indices": idx}
    elif args.op == "adaptive-max-pool2d-backward":
        gy, _ = load(args.grad_output)
        x, _ = load(args.input)
        idx, _ = load(args.indices)
        outs = {"grad_input": poolgrad.adaptive_max_pool2d_backward(gy, x, idx)}
    elif args.op == "max-pool3d":
        x, _ = load(args.input)
        out, idx = poolgrad.max_pool3d_with_indices(x, args.kernel, args.stride, args.padding,
                                                    args.dilation, args.ceil, args.index_dtype)
        outs = {"out": out, "indices": idx}
    elif args.op == "max-pool3d-backward":
        gy, _ = load(args.grad_output)
        x, _ = load(args.input)
        idx, _ = load(args.indices)
        outs = {"grad_input": poolgrad.max_pool3d_with_indices_backward(
            gy, x, idx, args.kernel, args.stride, args.padding, args.dilation, args.ceil)}
    elif args.op == "adaptive-max-pool3d":
        x, _ = load(args.input)
        out, idx = poolgrad.adaptive_max_pool3d(x, args.output_size, args.index_dtype)
        outs = {"out": out, "indices": idx}
    elif args.op == "adaptive-max-pool3d-backward":
        gy, _ = load(args.grad_output)
        x, _ = load(args.input)
        idx, _ = load(args.indices)
        outs = {"grad_input": poolgrad.adaptive_max_pool3d_backward(gy, x, idx)}
    elif args.op == "roi-pool":
        x, _ = load(args.input)
        rois, _ = load(args.rois)
        y, am = poolgrad.roi_pool_with_argmax(x, rois, args.output_size, args.spatial_scale)
        outs = {"y": y, "argmax": am}
    else:  # roi-pool-backward
        gy, _ = load(args.grad_output)
        rois, _ = load(args.rois)
        am, _ = load(args.argmax)
        outs = {"grad_input": poolgrad.roi_pool_with_argmax_backward(
            gy, rois, am, args.input_shape, args.spatial_scale)}
    for name, a in outs.items():
        path = save(os.path.join(args.out_dir, name), np.asarray(a), args.out_format)
        print(f"wrote {path} {a.dtype} {list(a.shape)}")
    return 0


def compare(args) -> int:
    a, da = load(args.a)
    b, db = load(args.b)
    if a.shape != b.shape:
        raise CliError(f"shapes differ: {args.a} is {list(a.shape)}, {args.b} is {list(b.shape)}")
    dtype = args.dtype or da
    atol_d, rtol_d = TOLERANCE.get(dtype, (0.0, 0.0))
    atol = args.atol if args.atol is not None else atol_d
    rtol = args.rtol if args.rtol is not None else rtol_d
    if np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer):
        diff = np.abs(a.astype(np.int64) - b.astype(np.int64)).astype(np.float64)
        ref = np.abs(b.astype(np.float64))
        both_nan = np.zeros(a.shape, bool)
    else:
        af, bf = a.astype(np.float64), b.astype(np.float64)
        both_nan = np.isnan(af) & np.isnan(bf)
        with np.errstate(invalid="ignore"):
            diff = np.where(both_nan, 0.0, np.abs(af - bf))
            same_inf = np.isinf(af) & np.isinf(bf) & (af == bf)
            diff = np.where(same_inf, 0.0, diff)
        diff = np.where(np.isnan(diff), np.inf, diff)
        ref = np.abs(bf)
    rel = np.divide(diff, ref, out=np.where(diff > 0, np.inf, 0.0), where=ref > 0)
    bad = diff > atol + rtol * ref
    n_bad = int(bad.sum())
    max_abs = float(diff.max()) if diff.size else 0.0
    max_rel = float(rel.max()) if rel.size else 0.0
    print(f"compare {args.a} vs {args.b}: {a.size} elements, dtype {dtype}, atol {atol:g}, rtol {rtol:g}")
    print(f"max abs error {max_abs:.6g}, max rel error {max_rel:.6g}, mismatches {n_bad}")
    if n_bad:
        pos = tuple(int(v) for v in np.argwhere(bad)[0])
        print(f"first mismatch at {list(pos)}: {a[pos]!r} vs {b[pos]!r}")
        print("FAIL")
        return 1
    print("PASS")
    return 0


EXAMPLES = """examples:
  poolgrad golden max-pool2d --input x.npy --kernel 3 --stride 2 --padding 1 --out-dir golden/
  poolgrad golden max-pool2d-backward --grad-output gy.bin:float16:1,3,4,4 --input x.bin:float16:1,3,8,8 \\
      --indices idx.npy --kernel 2 --out-dir golden/ --out-format bin
  poolgrad golden max-pool3d --input video.npy --kernel 3 --stride 2 --padding 1 --out-dir golden/
  poolgrad golden roi-pool --input x.npy --rois rois.npy --output-size 7 --spatial-scale 0.0625 --out-dir golden/
  poolgrad golden roi-pool-backward --grad-output gy.npy --rois rois.npy --argmax argmax.npy \\
      --input-shape 2,256,38,50 --out-dir golden/
  poolgrad compare npu_out.bin:float32:2,3,4,4 golden/out.npy --rtol 1e-4
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="poolgrad", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXAMPLES)
    p.add_argument("--version", action="version", version=f"poolgrad {poolgrad.__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("golden", help="run an operator and write its outputs",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXAMPLES)
    g.add_argument("op", choices=["max-pool2d", "max-pool2d-backward", "max-pool2d-mask",
                                  "max-pool2d-mask-backward", "adaptive-max-pool2d",
                                  "adaptive-max-pool2d-backward", "max-pool3d", "max-pool3d-backward",
                                  "adaptive-max-pool3d", "adaptive-max-pool3d-backward", "roi-pool",
                                  "roi-pool-backward"],
                   help="max-pool2d: aclnnMaxPool2dWithIndices; max-pool2d-backward: "
                        "aclnnMaxPool2dWithIndicesBackward; max-pool2d-mask(-backward): "
                        "aclnnMaxPool2dWithMask(Backward) (A2/A3 products, int8 mask); "
                        "adaptive-max-pool2d(-backward): aclnnAdaptiveMaxPool2d(Backward) (the "
                        "backward on A2/A3 products); max-pool3d(-backward): "
                        "aclnnMaxPool3dWithArgmax(Backward); adaptive-max-pool3d(-backward): "
                        "aclnnAdaptiveMaxPool3d(Backward); roi-pool: "
                        "aclnnRoiPoolingWithArgMax; roi-pool-backward: aclnnRoiPoolingGradWithArgMax")
    g.add_argument("--input", help="x (.npy, or PATH:DTYPE:SHAPE for .bin); for max-pool2d-backward the "
                                   "forward input (only its shape and dtype are used)")
    g.add_argument("--grad-output", help="the gradient of the forward output (backward ops)")
    g.add_argument("--indices", help="max-pool2d-backward: the forward's indices (int32 or int64)")
    g.add_argument("--rois", help="roi ops: (R, 5) rows (batch_index, x1, y1, x2, y2)")
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
                   help="roi-pool: pooled size, p or ph,pw; adaptive-max-pool2d: Hout,Wout; "
                        "adaptive-max-pool3d: Dout,Hout,Wout")
    g.add_argument("--spatial-scale", type=_floats, default=1.0,
                   help="roi ops: spatial scale, s or sh,sw (default 1.0)")
    g.add_argument("--input-shape", type=_ints, default=None, help="roi-pool-backward: N,C,H,W of x")
    g.add_argument("--out-dir", required=True, help="directory for the outputs")
    g.add_argument("--out-format", choices=["npy", "bin"], default="npy", help="output files (default npy)")
    g.add_argument("--threads", type=int, default=0, help="threads (default: all cores)")
    c = sub.add_parser("compare", help="compare two arrays with dtype-aware tolerances",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXAMPLES)
    c.add_argument("a", help="the array under test (.npy or PATH:DTYPE:SHAPE)")
    c.add_argument("b", help="the reference (.npy or PATH:DTYPE:SHAPE)")
    c.add_argument("--atol", type=float, default=None,
                   help="absolute tolerance (default per dtype: float32 1e-6, float16 1e-3, bfloat16 1e-2, ints 0)")
    c.add_argument("--rtol", type=float, default=None,
                   help="relative tolerance (default per dtype: float32 1e-5, float16 1e-3, bfloat16 1e-2, ints 0)")
    c.add_argument("--dtype", choices=list(DTYPES), default=None, help="dtype whose default tolerances apply")
    return p


REQUIRED = {
    "max-pool2d": ["input", "kernel"],
    "max-pool2d-backward": ["grad_output", "input", "indices", "kernel"],
    "max-pool2d-mask": ["input", "kernel"],
    "adaptive-max-pool2d": ["input", "output_size"],
    "adaptive-max-pool2d-backward": ["grad_output", "input", "indices"],
    "max-pool2d-mask-backward": ["grad_output", "input", "mask", "kernel"],
    "max-pool3d": ["input", "kernel"],
    "max-pool3d-backward": ["grad_output", "input", "indices", "kernel"],
    "adaptive-max-pool3d": ["input", "output_size"],
    "adaptive-max-pool3d-backward": ["grad_output", "input", "indices"],
    "roi-pool": ["input", "rois", "output_size"],
    "roi-pool-backward": ["grad_output", "rois", "argmax", "input_shape"],
}


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.command == "golden":
            missing = [m for m in REQUIRED[args.op] if getattr(args, m) is None]
            if missing:
                raise CliError(f"{args.op} needs " + ", ".join("--" + m.replace("_", "-") for m in missing))
            if args.threads:
                poolgrad.set_num_threads(args.threads)
            return golden(args)
        return compare(args)
    except (CliError, poolgrad.PoolgradError) as e:
        print(f"poolgrad: error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - one clear line, never a traceback
        print(f"poolgrad: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
