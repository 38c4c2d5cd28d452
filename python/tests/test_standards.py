# SPDX-License-Identifier: Apache-2.0
"""CANN's precision standards (poolgrad.standards) on crafted arrays at and around every threshold,
for each dtype, with NaN and inf. The thresholds and the expected metrics are written here from
the published documents and computed element by element in plain Python, not taken from the module."""
import math

import ml_dtypes
import numpy as np
import pytest

from poolgrad import standards as S

DT = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32}
# (rtol, atol, error cap) of the mixed standard; the experimental threshold T; spacing at 1.0.
MIXED = {"float16": (2**-9, 2**-9, 0.1), "bfloat16": (2**-6, 2**-6, 1.0), "float32": (2**-10, 2**-16, 0.01)}
T = {"float16": 2**-10, "bfloat16": 2**-7, "float32": 2**-13}
ULP1 = {"float16": 2**-10, "bfloat16": 2**-7, "float32": 2**-23}
LEVELS = {"L0": (10, 2, 2), "L1": (5, 1.5, 1.5), "L2": (2, 1.2, 1.2)}
SMALL = {"float16": (2**-11, 2**-16), "bfloat16": (2**-8, 2**-16), "float32": (2**-14, 2**-30)}
DTYPES = list(DT)


def arr(values, dt):
    return np.array(values, np.float64).astype(DT[dt])


def exact(values, dt):
    """The values, asserting the dtype holds each exactly (the crafted errors are not rounded)."""
    a = arr(values, dt)
    assert [float(v) for v in a.astype(np.float64)] == [float(v) for v in values]
    return a


def next_up(v, dt):
    """The next value of dtype dt above the positive value v."""
    a = np.array([v]).astype(DT[dt])
    bits = a.view(np.uint16 if a.itemsize == 2 else np.uint32)
    return float((bits + 1).view(a.dtype).astype(np.float64)[0])


def largest_at_most(v, dt):
    a = float(np.array([v]).astype(DT[dt]).astype(np.float64)[0])
    if a > v:
        bits = np.array([v]).astype(DT[dt]).view(np.uint16 if dt != "float32" else np.uint32) - 1
        a = float(bits.view(DT[dt]).astype(np.float64)[0])
    return a


# ---- mixed -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dt", DTYPES)
def test_mixed_elementwise_tolerance_and_99_percent_rule(dt):
    rtol, atol, _ = MIXED[dt]
    bound = atol + rtol * 1.0
    inside, outside = 1 + bound, 1 + bound + ULP1[dt]
    g = np.ones(1000, DT[dt])
    # one element exactly at the tolerance is within it; one ulp more is outside
    v = S.judge(exact([inside] + [1] * 999, dt), g)
    assert v.standard == "mixed" and v.dtype == dt and v.passed and v.metrics["error_ratio"] == 0
    v = S.judge(exact([outside] + [1] * 999, dt), g)
    assert v.passed and v.metrics["error_ratio"] == 0.001 and v.first == [(0,)]
    # 10 of 1000 outside: matched ratio 0.99 passes; 11: 0.989 fails
    assert S.judge(exact([outside] * 10 + [1] * 990, dt), g).passed
    v = S.judge(exact([outside] * 11 + [1] * 989, dt), g)
    assert not v.passed and "matched ratio" in v.reason and v.metrics["matched_ratio"] == 0.989


@pytest.mark.parametrize("dt", DTYPES)
def test_mixed_error_cap(dt):
    _, _, cap = MIXED[dt]
    g = np.zeros(1000, DT[dt])
    a_in = largest_at_most(cap, dt)
    a_out = next_up(a_in, dt)
    assert a_in <= cap < a_out
    assert S.judge(arr([a_in] + [0] * 999, dt), g).passed
    v = S.judge(arr([a_out] + [0] * 999, dt), g)
    assert not v.passed and "error cap" in v.reason and v.metrics["matched_ratio"] == 0.999


@pytest.mark.parametrize("dt,g0", [("float16", 1024.0), ("bfloat16", 256.0), ("float32", 2.0**20)])
def test_mixed_error_cap_is_32_ulp_of_large_goldens(dt, g0):
    ulp = {"float16": 1.0, "bfloat16": 2.0, "float32": 2.0**-3}[dt]  # the spacing at g0
    cap32 = 32 * ulp
    assert cap32 > MIXED[dt][2]
    g = np.full(1000, g0, DT[dt])
    assert S.judge(exact([g0 + cap32] + [g0] * 999, dt), g).passed
    v = S.judge(exact([g0 + cap32 + ulp] + [g0] * 999, dt), g)
    assert not v.passed and "error cap" in v.reason


@pytest.mark.parametrize("dt", DTYPES)
def test_mixed_nan_and_inf(dt):
    g = arr([np.nan, np.inf, -np.inf, 1.0], dt)
    assert S.judge(arr([np.nan, np.inf, -np.inf, 1.0], dt), g).passed
    for bad in ([np.nan, np.inf, np.inf, 1.0], [1.0, np.inf, -np.inf, 1.0], [np.nan, np.nan, -np.inf, 1.0],
                [np.nan, np.inf, -np.inf, np.inf]):
        v = S.judge(arr(bad, dt), g)
        assert not v.passed and v.metrics["nan_inf_mismatches"] == 1, bad
    # One NaN among 1000 is only 0.1% of elements, yet fails: a NaN/inf mismatch is an unbounded error.
    big = np.ones(1000, DT[dt])
    bad = big.copy()
    bad[5] = np.nan
    v = S.judge(bad, big)
    assert not v.passed and "NaN/inf" in v.reason and v.first[0] == (5,)


def test_mixed_takes_the_dtype_of_the_device_output():
    g = np.ones(100, np.float32)
    a = np.ones(100, np.float16)
    a[0] = 1 + 2**-8  # within float16's tolerance, not within float32's
    v = S.judge(a, g)
    assert v.dtype == "float16" and v.passed and v.metrics["error_ratio"] == 0
    v = S.judge(a.astype(np.float32), g)
    assert v.dtype == "float32" and v.metrics["error_ratio"] == 0.01


def test_metrics_match_an_element_by_element_computation():
    rng = np.random.default_rng(0)
    g = rng.standard_normal(257).astype(np.float32)
    a = (g + rng.standard_normal(257).astype(np.float32) * 1e-3).astype(np.float32)
    a[3], g[4] = g[3], 0.0  # an exact element and a zero golden
    m = S.judge(a, g).metrics
    av, gv = [float(v) for v in a], [float(v) for v in g]
    err = [abs(x - y) for x, y in zip(av, gv)]
    rel = [e / (abs(y) + 1e-7) for e, y in zip(err, gv)]
    assert m["max_abs_error"] == max(err)
    assert m["mere"] == pytest.approx(sum(rel) / len(rel), rel=1e-12)
    assert m["mare"] == pytest.approx(max(rel), rel=1e-12)
    assert m["rmse"] == pytest.approx(math.sqrt(sum(e * e for e in err) / len(err)), rel=1e-12)
    dot = sum(x * y for x, y in zip(av, gv))
    cos = dot / math.sqrt(sum(x * x for x in av) * sum(y * y for y in gv))
    assert m["cosine_similarity"] == pytest.approx(cos, rel=1e-12)
    assert m["max_rel_error"] == math.inf  # a zero golden with a non-zero error
    rtol, atol, _ = MIXED["float32"]
    assert m["error_ratio"] == sum(e > atol + rtol * abs(y) for e, y in zip(err, gv)) / 257


# ---- binary ----------------------------------------------------------------------------------
def test_binary_counts_and_locates_mismatches():
    g = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    a = g.astype(np.int32)
    v = S.judge(a, g)
    assert v.standard == "binary" and v.passed and v.metrics["mismatches"] == 0
    a[0, 1, 2] = -1
    a[1, 2, 3] += 7
    a[1, 0, 0] += 1
    v = S.judge(a, g)
    assert not v.passed and v.metrics["mismatches"] == 3 and v.reason == "3 of 24 elements differ"
    assert v.first == [(0, 1, 2), (1, 0, 0), (1, 2, 3)]
    mask = np.zeros((2, 4, 64), np.int8)
    assert S.judge(mask, mask).passed and S.judge(mask, mask).standard == "binary"


def test_binary_on_floats_is_bitwise_with_nan_equal_nan():
    g = np.array([0.0, np.nan, 1.5], np.float32)
    assert S.judge(np.array([0.0, np.nan, 1.5], np.float32), g, "binary").passed
    v = S.judge(np.array([-0.0, np.nan, 1.5], np.float32), g, "binary")
    assert not v.passed and v.first == [(0,)]
    with pytest.raises(ValueError, match="integers compare with integers"):
        S.judge(np.zeros(3, np.int32), g, "binary")
    with pytest.raises(ValueError, match="use binary"):
        S.judge(np.zeros(3, np.int32), np.zeros(3, np.int32), "mixed")


# ---- experimental ----------------------------------------------------------------------------
@pytest.mark.parametrize("dt", DTYPES)
def test_experimental_mere_threshold(dt):
    t = T[dt]
    g = np.ones(1000, DT[dt])
    d = 2 * t  # each error 2T: MERE = k 2T / (1000 (1 + 1e-7)) < T  <=>  k <= 500
    for k, ok in ((500, True), (501, False)):
        a = exact([1 + d] * k + [1] * (1000 - k), dt)
        v = S.judge(a, g, "experimental")
        mere = k * d / (1 + 1e-7) / 1000
        assert v.metrics["mere"] == pytest.approx(mere, rel=1e-12)
        assert (mere < t) == ok and v.passed == ok, (k, v.reason)
        if not ok:
            assert "MERE" in v.reason and "MARE" not in v.reason


@pytest.mark.parametrize("dt", DTYPES)
def test_experimental_mare_threshold(dt):
    t, ulp = T[dt], ULP1[dt]
    e_in = math.floor(10 * t * (1 + 1e-7) / ulp) * ulp
    while e_in / (1 + 1e-7) >= 10 * t:
        e_in -= ulp
    g = np.ones(1000, DT[dt])
    for e, ok in ((e_in, True), (e_in + ulp, False)):
        v = S.judge(exact([1 + e] + [1] * 999, dt), g, "experimental")
        assert v.metrics["mare"] == pytest.approx(e / (1 + 1e-7), rel=1e-12)
        assert v.passed == ok and (ok or "MARE" in v.reason)


@pytest.mark.parametrize("dt", DTYPES)
def test_experimental_nan_and_inf(dt):
    g = arr([np.nan, np.inf, 1.0], dt)
    assert S.judge(arr([np.nan, np.inf, 1.0], dt), g, "experimental").passed
    v = S.judge(arr([np.nan, -np.inf, 1.0], dt), g, "experimental")
    assert not v.passed and "NaN/inf" in v.reason


# ---- dual ------------------------------------------------------------------------------------
E = {"float16": 2**-3, "bfloat16": 2**-1, "float32": 2**-8}  # the third party's error, above the floor
MARGIN = {"float16": 0.04, "bfloat16": 0.10, "float32": 0.01}  # "just" at each dtype's resolution


def _ratios(t, g, b):
    """MARE, MERE and RMSE ratios computed element by element (every |g| here is large)."""
    tv, gv, bv = ([float(x) for x in np.asarray(v).astype(np.float64)] for v in (t, g, b))
    rt = [abs(x - y) / (abs(y) + 1e-7) for x, y in zip(tv, gv)]
    rb = [abs(x - y) / (abs(y) + 1e-7) for x, y in zip(bv, gv)]
    n = len(gv)
    rmse_t = math.sqrt(sum((x - y) ** 2 for x, y in zip(tv, gv)) / n)
    rmse_b = math.sqrt(sum((x - y) ** 2 for x, y in zip(bv, gv)) / n)
    return max(rt) / max(rb), (sum(rt) / n) / (sum(rb) / n), rmse_t / rmse_b


def _design(which, r, e, n=100):
    """Device and third-party errors whose `which` ratio is r and whose other ratios stay small."""
    if which == "mare":  # third e everywhere, device r e once: ratios r, r / 100, r / 10
        return [r * e] + [0] * (n - 1), [e] * n
    if which == "rmse":  # third e everywhere, device s on half: rmse s/(e sqrt 2), mare s/e, mere s/(2e)
        return [r * math.sqrt(2) * e] * (n // 2) + [0] * (n // 2), [e] * n
    # mere: device s everywhere, third e on a quarter: mere 4s/e, rmse 2s/e, mare s/e
    return [r * e / 4] * n, [e] * (n // 4) + [0] * (n - n // 4)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("level", list(LEVELS))
@pytest.mark.parametrize("which", ["mare", "mere", "rmse"])
def test_dual_ratio_limits(dt, level, which):
    limit = LEVELS[level][("mare", "mere", "rmse").index(which)]
    g = np.ones(100, DT[dt])
    for side in (-1, 1):
        dev, third = _design(which, limit * (1 + side * MARGIN[dt]), E[dt])
        t = arr([1 + d for d in dev], dt)
        b = arr([1 + d for d in third], dt)
        ratios = dict(zip(("mare", "mere", "rmse"), _ratios(t, g, b)))
        assert (ratios[which] > limit) == (side > 0), ratios  # the design lands where intended
        for k, lim in zip(("mare", "mere", "rmse"), LEVELS[level]):
            assert k == which or ratios[k] <= lim
        v = S.judge(t, g, "dual", b, level)
        for k in ratios:
            assert v.metrics[f"{k}_ratio"] == pytest.approx(ratios[k], rel=1e-9)
        assert v.passed == (side < 0), (which, level, ratios, v.reason)
        if side > 0:
            assert f"{which.upper()} ratio" in v.reason


@pytest.mark.parametrize("dt", DTYPES)
def test_dual_small_value_error_count(dt):
    small, small_atol = SMALL[dt]
    g = np.zeros(50, DT[dt])  # every golden below the small-value threshold
    err = 2 * small_atol
    for third_errors, device_errors, ok in ((2, 4, True), (2, 5, False), (0, 2, True), (0, 3, False)):
        b = exact([err] * third_errors + [0] * (50 - third_errors), dt)
        t = exact([err] * device_errors + [0] * (50 - device_errors), dt)
        v = S.judge(t, g, "dual", b)
        assert v.metrics["small_errors_device"] == device_errors
        assert v.metrics["small_errors_third_party"] == third_errors
        assert v.passed == ok and (ok or "small-value" in v.reason)
    # errors at or under small_value_atol are not counted
    t = exact([small_atol] * 50, dt)
    assert S.judge(t, g, "dual", g).metrics["small_errors_device"] == 0
    assert small > 0


@pytest.mark.parametrize("dt", DTYPES)
def test_dual_nan_and_inf_rules(dt):
    nan, inf = np.nan, np.inf
    g = arr([1.0, nan, 1.0, inf, 2.0], dt)
    b = arr([nan, 1.0, 1.0, inf, 2.0], dt)
    # device NaN where the third party is NaN, and NaN where the golden is NaN: both right
    assert S.judge(arr([nan, nan, 1.0, inf, 2.0], dt), g, "dual", b).passed
    # device NaN where neither is; device -inf where both say +inf
    for bad in ([nan, nan, nan, inf, 2.0], [nan, nan, 1.0, -inf, 2.0], [1.0, nan, 1.0, inf, 2.0]):
        v = S.judge(arr(bad, dt), g, "dual", b)
        assert not v.passed and "NaN/inf" in v.reason, bad


def test_dual_needs_a_third_party_and_a_known_level():
    g = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="third party"):
        S.judge(g, g, "dual")
    with pytest.raises(ValueError, match="level"):
        S.judge(g, g, "dual", g, "L3")
    with pytest.raises(ValueError, match="shapes differ"):
        S.judge(g, np.ones(5, np.float32))


def test_default_standard_follows_the_output_dtype():
    for name, std in (("int64", "binary"), ("int32", "binary"), ("int8", "binary"), ("float16", "mixed"),
                      ("bfloat16", "mixed"), ("float32", "mixed")):
        assert S.default_standard(name) == std


# ---- msprobe's metrics and ULP standard -----------------------------------------------------------
# The thresholds written here from msprobe's documented rules: ratios of relative errors below
# 0.001 / 0.005; ULP errors over 1 (float16, bfloat16) or 32 (float32); pass below 0.1% / 5%,
# or float32's mean under 64 ULP.
@pytest.mark.parametrize("dt", DTYPES)
def test_thousandths_count_relative_errors_below_the_thresholds(dt):
    g = exact([1.0, 2.0, 4.0, 8.0], dt)
    a = g.astype(np.float64) * np.array([1.0, 1 + 2**-7, 1 + 2**-10 * 3, 1.0])  # rel 0, 1/128, ~0.003, 0
    a = a.astype(DT[dt])
    rel = [abs(float(x) - float(y)) / abs(float(y)) for x, y in zip(a.astype(np.float64), g.astype(np.float64))]
    m = S.metrics(a, g, dt)
    assert m["one_thousandth_ratio"] == sum(r < 0.001 for r in rel) / 4
    assert m["five_thousandths_ratio"] == sum(r < 0.005 for r in rel) / 4


def test_thousandths_treat_a_zero_golden_with_epsilon_and_nan_as_outside():
    g = np.array([0.0, 0.0, 1.0, 1.0], np.float32)
    a = np.array([0.0, 1e-3, np.nan, 1.0], np.float32)
    m = S.metrics(a, g, "float32")
    # 0 vs 0: relative error 0; 1e-3 vs 0: 1e-3 / eps, far outside; NaN outside; exact inside.
    assert m["one_thousandth_ratio"] == 0.5 and m["five_thousandths_ratio"] == 0.5
    assert "one_thousandth_ratio" not in S.metrics(np.arange(3), np.arange(3), "int64")


@pytest.mark.parametrize("dt", DTYPES)
def test_ulp_errors_are_in_units_of_the_goldens_binade(dt):
    g = exact([1.0, 1.5, -3.0, 0.0], dt)
    a = arr([1.0 + 2 * ULP1[dt], 1.5, -3.0 - 2 * ULP1[dt], 0.0], dt)
    e = S.ulp_errors(a, g, dt)
    assert list(e) == [2.0, 0.0, 1.0, 0.0]  # -3 lies in [2, 4): its ULP is twice 1.0's


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_ulp_standard_16_bit_passes_below_one_in_a_thousand_beyond_1_ulp(dt):
    g = np.ones(2000, np.float64)
    a = g.copy()
    a[:1] += 2 * ULP1[dt]  # 1 of 2000 beyond 1 ULP: 0.0005 < 0.001
    v = S.judge(a.astype(DT[dt]), g.astype(DT[dt]), "ulp")
    assert v.passed and v.metrics["ulp_error_proportion"] == 0.0005 and v.metrics["max_ulp_error"] == 2.0
    a[:2] += 2 * ULP1[dt]  # 2 of 2000: 0.001, not below the limit
    v = S.judge(a.astype(DT[dt]), g.astype(DT[dt]), "ulp")
    assert not v.passed and "beyond 1 ULP" in v.reason and v.first[0] == (0,)
    a[:] = 1.0  # exactly 1 ULP off everywhere: not beyond
    a[:] += ULP1[dt]
    assert S.judge(a.astype(DT[dt]), g.astype(DT[dt]), "ulp").passed


def test_ulp_standard_float32_passes_on_the_mean_or_the_proportion():
    g = np.ones(100, np.float32)
    a = g.astype(np.float64)
    a[:10] += 100 * ULP1["float32"]  # 10% beyond 32 ULP, mean 10 ULP < 64: passes on the mean
    v = S.judge(a.astype(np.float32), g, "ulp")
    assert v.passed and v.metrics["mean_ulp_error"] == 10.0
    a[:10] += 600 * ULP1["float32"]  # mean 70 >= 64 and 10% >= 5%
    assert not S.judge(a.astype(np.float32), g, "ulp").passed
    b = g.astype(np.float64)
    b[:4] += 2000 * ULP1["float32"]  # mean 80 but 4% < 5%: passes on the proportion
    assert S.judge(b.astype(np.float32), g, "ulp").passed


def test_ulp_standard_fails_on_nan_mismatch_and_refuses_integers():
    g = np.ones(4, np.float16)
    a = g.copy()
    a[0] = np.nan
    v = S.judge(a, g, "ulp")
    assert not v.passed and "NaN/inf" in v.reason
    with pytest.raises(ValueError):
        S.judge(np.arange(4), np.arange(4), "ulp")


@pytest.mark.parametrize("dt", DTYPES)
def test_msprobe_metrics_agree_with_mindstudio_probe(dt):
    """The cross-check against msprobe itself (mindstudio-probe from PyPI, installed by venv.sh)."""
    import torch
    from msprobe.core.compare.utils import calc_relative_err_ratio
    from msprobe.pytorch.api_accuracy_checker.compare.algorithm import get_ulp_err

    rng = np.random.default_rng(7)
    g = rng.standard_normal(4096).astype(DT[dt])
    noise = rng.standard_normal(4096) * rng.choice([0.0, 1e-4, 2e-3, 1e-2], 4096)
    a = (g.astype(np.float64) * (1 + noise)).astype(DT[dt])
    g[:8] = 0
    a[:4] = 0
    m = S.metrics(a, g, dt)
    # msprobe takes NumPy arrays; bfloat16 as float32 (ml_dtypes is not a NumPy type it knows).
    na, ng = (a.astype(np.float32), g.astype(np.float32)) if dt == "bfloat16" else (a, g)
    assert m["one_thousandth_ratio"] == pytest.approx(float(calc_relative_err_ratio(na, ng, 0.001)[0]), abs=1e-9)
    assert m["five_thousandths_ratio"] == pytest.approx(float(calc_relative_err_ratio(na, ng, 0.005)[0]), abs=1e-9)
    tdt = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}[dt]
    with np.errstate(all="ignore"):
        theirs = get_ulp_err(ng.astype(np.float64) if dt == "float32" else ng,
                             na.astype(np.float64) if dt == "float32" else na, tdt)
    # msprobe computes the binade as floor(log2 |g|) in the array's own dtype: in float16 the
    # log of a golden just below a power of two can round up to the next binade (its ULP error
    # then half of ours), and 2^(mantissa - binade) overflows for goldens below 2^-5 (inf or
    # NaN). Compared where its figure is finite; elsewhere equal or, rarely, a factor of 2.
    ok = np.isfinite(theirs)
    assert ok.mean() > 0.9
    ours, theirs = S.ulp_errors(a, g, dt)[ok], theirs[ok].astype(np.float64)
    same = np.isclose(ours, theirs, rtol=1e-6, atol=0)
    assert same.mean() > 0.999
    assert np.array_equal(ours[~same], 2 * theirs[~same])
