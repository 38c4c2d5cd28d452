# SPDX-License-Identifier: Apache-2.0
"""CANN's precision standards: is a device output close enough to poolgrad's golden?

Four standards, their thresholds and the rules for NaN and inf as CANN publishes them (the
experimental standard in hicann/opbase docs/*/ops_precision_standard/, the others in
hicann/ops-test-kit docs/Precision_Comparison.md and docs/XPU_Cross_Check.md); docs/golden.md
cites each rule and says where poolgrad had to choose. Pure NumPy: every metric is computed in
float64 from the arrays as stored.

  mixed         elementwise |a - g| <= atol + rtol |g|; pass when >= 99% of elements do and no
                element is beyond the error cap (per dtype, or 32 ulp of the golden when larger)
  binary        exact equality (integer outputs: indices, argmax, masks); NaN equals NaN
  experimental  MERE < T and MARE < 10 T, relative error |a - g| / (|g| + 1e-7)
  dual          the device's MARE, MERE and RMSE against a third-party result's, as ratios within
                the L0/L1/L2 limits, plus the small-value error-count rule

Beside them, the metrics and the ULP standard Ascend users read in MindStudio's msprobe (its API
accuracy checker and comparator; docs/golden.md says where each rule is from):

  one_thousandth_ratio, five_thousandths_ratio   fractions of elements whose relative error is
                below 0.001 / 0.005 (every floating output's metrics)
  ulp           ULP errors |a - g| / ulp(g) at the dtype's precision: float16 and bfloat16 pass
                when fewer than 0.1% of elements exceed 1 ULP; float32 when the mean is below 64
                ULP or fewer than 5% exceed 32 ULP
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

STANDARDS = ("mixed", "binary", "experimental", "dual", "ulp")
FLOAT_DTYPES = ("float16", "bfloat16", "float32")
FALLBACK = "float32"  # other floating dtypes (float64) are judged at float32's thresholds

# mixed: (rtol, atol, error cap) per dtype; >= 99% of elements within tolerance.
MIXED = {"float16": (2.0**-9, 2.0**-9, 1e-1), "bfloat16": (2.0**-6, 2.0**-6, 1.0),
         "float32": (2.0**-10, 2.0**-16, 1e-2)}
MATCHED_RATIO = 0.99
CAP_ULPS = 32
# experimental: MERE < T, MARE < 10 T; relative errors use EPS to avoid dividing by a zero golden.
EXPERIMENTAL = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-13}
MARE_FACTOR = 10.0
EPS = 1e-7
# dual: limits on the (MARE, MERE, RMSE) ratios per level; small-value region and its error atol.
LEVELS = {"L0": (10.0, 2.0, 2.0), "L1": (5.0, 1.5, 1.5), "L2": (2.0, 1.2, 1.2)}
SMALL_VALUE = {"float16": (2.0**-11, 2.0**-16), "bfloat16": (2.0**-8, 2.0**-16),
               "float32": (2.0**-14, 2.0**-30)}
SMALL_COUNT_RATIO = 2.0
# msprobe: the relative-error thresholds of its two ratios, and the ULP standard's per-dtype
# (ULPs an element may be off, largest fraction beyond that, mean-ULP limit or None).
THOUSANDTHS = {"one_thousandth_ratio": 0.001, "five_thousandths_ratio": 0.005}
ULP_STANDARD = {"float16": (1.0, 0.001, None), "bfloat16": (1.0, 0.001, None),
                "float32": (32.0, 0.05, 64.0)}
# Significand bits and smallest normal exponent, for ulp(): float16, bfloat16, float32.
_BITS = {"float16": (10, -14), "bfloat16": (7, -126), "float32": (23, -126)}
FIRST = 10  # positions listed per verdict


def dtype_name(a) -> str:
    """'float16', 'bfloat16' (ml_dtypes), 'int32', ... of an array."""
    return str(np.asarray(a).dtype)


def is_integer(name: str) -> bool:
    return name == "bool" or name.startswith(("int", "uint"))


def default_standard(name: str) -> str:
    """The test kit's routing: integer and boolean outputs binary, floating outputs mixed."""
    return "binary" if is_integer(name) else "mixed"


def _table(table: dict, name: str):
    return table.get(name, table[FALLBACK])


def ulp(g: np.ndarray, name: str) -> np.ndarray:
    """The spacing of dtype `name` at |g| (float64 values of that dtype)."""
    mant, emin = _BITS.get(name, _BITS[FALLBACK])
    _, e = np.frexp(np.abs(g))  # |g| = m 2^e, m in [0.5, 1): the binade's exponent is e - 1
    return np.ldexp(1.0, np.maximum(e - 1, emin) - mant)


@dataclass
class Verdict:
    """One output judged: `metrics` holds plain floats and ints, `first` the first positions
    outside the standard's tolerance (index tuples, up to FIRST), `reason` why it failed."""
    standard: str
    dtype: str
    passed: bool
    metrics: dict = field(default_factory=dict)
    reason: str = ""
    first: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"standard": self.standard, "dtype": self.dtype, "passed": self.passed,
                "reason": self.reason, "metrics": dict(self.metrics),
                "first_mismatches": [list(p) for p in self.first]}


def _f64(a) -> np.ndarray:
    return np.asarray(a).astype(np.float64)


def _same_special(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Both NaN, or both the same infinity."""
    return (np.isnan(a) & np.isnan(g)) | (np.isinf(a) & np.isinf(g) & (a == g))


def _first(mask: np.ndarray, order=None) -> list:
    """Positions of the first FIRST True elements (in `order`, a flat ranking, when given)."""
    flat = np.flatnonzero(mask) if order is None else order[mask.ravel()[order]]
    return [tuple(int(v) for v in np.unravel_index(i, mask.shape)) for i in flat[:FIRST]]


def metrics(actual, golden, name: str) -> dict:
    """Every metric of the report, over the elements where both are finite (the NaN and inf
    positions are counted apart: a NaN or inf in one and not the same in the other is a
    mismatch). error_ratio is the fraction of elements outside the mixed tolerance (integers:
    the fraction not equal)."""
    a, g = _f64(actual), _f64(golden)
    n = a.size
    finite = np.isfinite(a) & np.isfinite(g)
    special_mismatch = ~finite & ~_same_special(a, g)
    af, gf = a[finite], g[finite]
    err = np.abs(af - gf)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(gf != 0, err / np.abs(gf), np.where(err > 0, np.inf, 0.0))
    rel_eps = err / (np.abs(gf) + EPS)
    if is_integer(name):
        outside = int(np.count_nonzero(a != g))
    else:
        rtol, atol, _ = _table(MIXED, name)
        outside = int(np.count_nonzero(err > atol + rtol * np.abs(gf))) + int(special_mismatch.sum())
    na, ng = float(np.sqrt(np.sum(af * af))), float(np.sqrt(np.sum(gf * gf)))
    if na == 0.0 and ng == 0.0:
        cosine = 1.0
    elif na == 0.0 or ng == 0.0:
        cosine = 0.0
    else:
        cosine = float(np.sum(af * gf) / (na * ng))
    out = {
        "elements": int(n),
        "max_abs_error": float(err.max()) if err.size else 0.0,
        "max_rel_error": float(rel.max()) if rel.size else 0.0,
        "mere": float(rel_eps.mean()) if rel_eps.size else 0.0,
        "mare": float(rel_eps.max()) if rel_eps.size else 0.0,
        "rmse": float(math.sqrt(np.mean(err * err))) if err.size else 0.0,
        "cosine_similarity": cosine,
        "error_ratio": outside / n if n else 0.0,
        "nan_inf_mismatches": int(special_mismatch.sum()),
    }
    if not is_integer(name):
        out.update(thousandths(actual, golden))
    return out


def thousandths(actual, golden) -> dict:
    """msprobe's one-thousandth and five-thousandths error ratios: the fraction of all elements
    whose relative error |a - g| / |g| is below 0.001 (0.005). Where the golden is 0, both values
    are raised by the machine epsilon of the arrays' common precision (float32 for the 16-bit
    dtypes) before dividing, as msprobe does; a NaN anywhere counts as outside."""
    a, g = np.asarray(actual), np.asarray(golden)
    eps = float(np.finfo(np.result_type(_f64_kind(a), _f64_kind(g), np.float32)).eps)
    a, g = _f64(a), _f64(g)
    zero = g == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.abs((a + eps * zero) - (g + eps * zero)) / np.abs(g + eps * zero)
    n = rel.size
    return {k: float(np.count_nonzero(rel < t)) / n if n else 1.0 for k, t in THOUSANDTHS.items()}


def _f64_kind(a: np.ndarray):
    """The dtype whose precision msprobe computes a relative error in: the array's own when it
    is a NumPy floating type, float32 for bfloat16 (ml_dtypes) and integers."""
    return a.dtype if a.dtype in (np.float16, np.float32, np.float64) else np.float32


def ulp_errors(actual, golden, name: str) -> np.ndarray:
    """|a - g| in ULPs of dtype `name` at g, as msprobe measures them: the ULP is that of g's
    binade (floor(log2 |g|), at least the smallest normal exponent), and of 1.0 where g is 0."""
    a, g = _f64(actual), _f64(golden)
    mant, emin = _BITS.get(name, _BITS[FALLBACK])
    with np.errstate(divide="ignore"):
        eb = np.where(g == 0, 0.0, np.floor(np.log2(np.abs(np.where(g == 0, 1.0, g)))))
    return np.abs(a - g) * np.exp2(mant - np.maximum(eb, emin))


def ulp_standard(actual, golden, name: str) -> Verdict:
    if name not in ULP_STANDARD:
        raise ValueError(f"ulp: supports {', '.join(FLOAT_DTYPES)}, not {name}")
    beyond_ulps, max_fraction, mean_limit = ULP_STANDARD[name]
    a, g = _f64(actual), _f64(golden)
    m = metrics(actual, golden, name)
    finite = np.isfinite(a) & np.isfinite(g)
    errs = ulp_errors(a[finite], g[finite], name)
    over = np.zeros(a.shape, bool)
    over[finite] = errs > beyond_ulps
    n = a.size
    fraction = float(np.count_nonzero(over)) / n if n else 0.0
    mean = float(errs.mean()) if errs.size else 0.0
    m.update(max_ulp_error=float(errs.max()) if errs.size else 0.0, mean_ulp_error=mean,
             ulp_error_proportion=fraction, ulp_threshold=beyond_ulps, ulp_proportion_limit=max_fraction)
    reasons = []
    if m["nan_inf_mismatches"]:
        reasons.append(f"{m['nan_inf_mismatches']} NaN/inf mismatches")
    elif not (fraction < max_fraction or (mean_limit is not None and mean < mean_limit)):
        reasons.append(f"{fraction:.6g} of elements beyond {beyond_ulps:g} ULP (limit {max_fraction:g})"
                       + (f" and mean ULP error {mean:.6g} >= {mean_limit:g}" if mean_limit else ""))
    bad = over | (~finite & ~_same_special(a, g))
    return Verdict("ulp", name, not reasons, m, "; ".join(reasons), _first(bad))


def mixed(actual, golden, name: str, rtol: float | None = None, atol: float | None = None,
          cap: float | None = None) -> Verdict:
    rt, at, cp = _table(MIXED, name)
    rt = rt if rtol is None else rtol
    at = at if atol is None else atol
    cp = cp if cap is None else cap
    a, g = _f64(actual), _f64(golden)
    m = metrics(actual, golden, name)
    same = _same_special(a, g)
    finite = np.isfinite(a) & np.isfinite(g)
    with np.errstate(invalid="ignore"):
        err = np.where(same, 0.0, np.where(finite, np.abs(a - g), np.inf))
        within = same | (finite & (err <= at + rt * np.abs(g)))
        capped = err <= np.maximum(cp, CAP_ULPS * ulp(np.where(np.isfinite(g), g, 0.0), name))
    ratio = float(within.mean()) if within.size else 1.0
    m.update(matched_ratio=ratio, rtol=rt, atol=at, error_cap=cp)
    reasons = []
    if m["nan_inf_mismatches"]:
        reasons.append(f"{m['nan_inf_mismatches']} NaN/inf mismatches")
    if ratio < MATCHED_RATIO:
        reasons.append(f"matched ratio {ratio:.6g} < {MATCHED_RATIO}")
    beyond = int(np.count_nonzero(~capped & finite))
    if beyond:
        reasons.append(f"{beyond} elements beyond the error cap ({cp:g} or {CAP_ULPS} ulp)")
    order = np.argsort(-np.where(np.isnan(err), np.inf, err).ravel(), kind="stable")
    return Verdict("mixed", name, not reasons, m, "; ".join(reasons), _first(~within, order))


def binary(actual, golden, name: str) -> Verdict:
    a, g = np.asarray(actual), np.asarray(golden)
    if is_integer(dtype_name(a)) != is_integer(dtype_name(g)):
        raise ValueError(f"binary: cannot compare {dtype_name(a)} with {dtype_name(g)} "
                         "(integers compare with integers, floats with floats)")
    if is_integer(name):
        equal = a.astype(np.int64) == g.astype(np.int64)
    elif a.dtype == g.dtype:  # the same bits, any NaN equal to any NaN
        bits = np.dtype(f"u{a.dtype.itemsize}")
        equal = (a.view(bits) == g.view(bits)) | (np.isnan(_f64(a)) & np.isnan(_f64(g)))
    else:
        raise ValueError(f"binary: the device's {dtype_name(a)} and the golden's {dtype_name(g)} "
                         "differ; bitwise equality needs one dtype")
    m = metrics(a, g, name)
    bad = int(np.count_nonzero(~equal))
    m.update(mismatches=bad)
    return Verdict("binary", name, bad == 0, m, f"{bad} of {a.size} elements differ" if bad else "",
                   _first(~equal))


def experimental(actual, golden, name: str) -> Verdict:
    t = _table(EXPERIMENTAL, name)
    m = metrics(actual, golden, name)
    m.update(threshold=t, mare_limit=MARE_FACTOR * t)
    reasons = []
    if m["nan_inf_mismatches"]:
        reasons.append(f"{m['nan_inf_mismatches']} NaN/inf mismatches")
    else:
        if not m["mere"] < t:
            reasons.append(f"MERE {m['mere']:.6g} >= {t:.6g}")
        if not m["mare"] < MARE_FACTOR * t:
            reasons.append(f"MARE {m['mare']:.6g} >= {MARE_FACTOR * t:.6g}")
    a, g = _f64(actual), _f64(golden)
    with np.errstate(invalid="ignore"):
        rel = np.abs(a - g) / (np.abs(g) + EPS)
    bad = ~_same_special(a, g) & ~(rel < MARE_FACTOR * t)
    return Verdict("experimental", name, not reasons, m, "; ".join(reasons), _first(bad))


def _ratio(num: float, den: float, floor: float) -> float:
    """The device's error over the third party's, the denominator floored at the small-value
    threshold so that a third party below the noise floor does not inflate the ratio."""
    if math.isnan(num) or math.isnan(den):
        return math.inf
    return float(num / max(den, floor))


def dual(actual, golden, third, name: str, level: str = "L1") -> Verdict:
    if name not in SMALL_VALUE:
        raise ValueError(f"dual: supports {', '.join(FLOAT_DTYPES)}, not {name}")
    if level not in LEVELS:
        raise ValueError(f"dual: level must be one of {', '.join(LEVELS)}, not {level!r}")
    mare_l, mere_l, rmse_l = LEVELS[level]
    small, small_atol = SMALL_VALUE[name]
    t, g, b = _f64(actual), _f64(golden), _f64(third)
    m = metrics(actual, golden, name)
    finite = np.isfinite(t) & np.isfinite(g) & np.isfinite(b)
    # NaN/inf: a position is right when the device agrees with the third party, or the golden
    # itself is NaN/inf and the device agrees with the golden.
    agree_b = _same_special(t, b) | (np.isfinite(t) & np.isfinite(b) & (t == b))
    agree_g = ~np.isfinite(g) & _same_special(t, g)
    special_bad = ~finite & ~(agree_b | agree_g)
    large = finite & (np.abs(g) >= small)
    tiny = finite & (np.abs(g) < small)
    with np.errstate(invalid="ignore"):
        et, eb = np.where(finite, np.abs(t - g), 0.0), np.where(finite, np.abs(b - g), 0.0)
    ratios = {"mare_ratio": 0.0, "mere_ratio": 0.0, "rmse_ratio": 0.0}
    if large.any():
        rt, rb = et[large] / (np.abs(g[large]) + EPS), eb[large] / (np.abs(g[large]) + EPS)
        ratios = {"mare_ratio": _ratio(rt.max(), rb.max(), small),
                  "mere_ratio": _ratio(rt.mean(), rb.mean(), small),
                  "rmse_ratio": _ratio(math.sqrt(np.mean(et[large] ** 2)),
                                       math.sqrt(np.mean(eb[large] ** 2)), small)}
    count_t = int(np.count_nonzero(tiny & (et > small_atol)))
    count_b = int(np.count_nonzero(tiny & (eb > small_atol)))
    small_ratio = count_t / max(count_b, 1)
    m.update(level=level, **ratios, mare_ratio_limit=mare_l, mere_ratio_limit=mere_l,
             rmse_ratio_limit=rmse_l, small_value=small, small_errors_device=count_t,
             small_errors_third_party=count_b, small_error_ratio=small_ratio,
             third_party_mare=metrics(third, golden, name)["mare"])
    reasons = []
    if special_bad.any():
        reasons.append(f"{int(special_bad.sum())} NaN/inf positions agree with neither the third "
                       "party nor a non-finite golden")
    for key, limit in (("mare_ratio", mare_l), ("mere_ratio", mere_l), ("rmse_ratio", rmse_l)):
        if ratios[key] > limit:
            reasons.append(f"{key.split('_')[0].upper()} ratio {ratios[key]:.4g} > {limit:g} ({level})")
    if small_ratio > SMALL_COUNT_RATIO:
        reasons.append(f"small-value errors {count_t} vs the third party's {count_b} "
                       f"(ratio {small_ratio:.4g} > {SMALL_COUNT_RATIO:g})")
    worse = special_bad | (finite & (et > eb))
    return Verdict("dual", name, not reasons, m, "; ".join(reasons), _first(worse))


def judge(actual, golden, standard: str | None = None, third=None, level: str = "L1",
          rtol: float | None = None, atol: float | None = None, cap: float | None = None) -> Verdict:
    """Judges `actual` (the device's output) against `golden` with `standard` (default: binary
    for integer outputs, mixed for floating ones). The dtype whose thresholds apply is the
    device's own."""
    a, g = np.asarray(actual), np.asarray(golden)
    if a.shape != g.shape:
        raise ValueError(f"shapes differ: the device's {list(a.shape)}, the golden's {list(g.shape)}")
    name = dtype_name(a)
    standard = standard or default_standard(name)
    if standard not in STANDARDS:
        raise ValueError(f"unknown standard {standard!r}; use one of {', '.join(STANDARDS)}")
    if standard != "binary" and (is_integer(name) or is_integer(dtype_name(g))):
        raise ValueError(f"the {standard} standard judges floating outputs; this one is "
                         f"{name} (use binary)")
    if standard == "binary":
        return binary(a, g, name)
    if standard == "mixed":
        return mixed(a, g, name, rtol, atol, cap)
    if standard == "experimental":
        return experimental(a, g, name)
    if standard == "ulp":
        return ulp_standard(a, g, name)
    if third is None:
        raise ValueError("the dual standard needs the third party's result")
    b = np.asarray(third)
    if b.shape != a.shape:
        raise ValueError(f"shapes differ: the device's {list(a.shape)}, the third party's {list(b.shape)}")
    return dual(a, g, b, name, level)
