#!/usr/bin/python3
"""Sampled simulation's estimate: the cycles of a run from its measured frames, with a
confidence interval (issue "Speed", item 3; docs/simulator.md "Sampled simulation").

A sampled run (VLGPU_SAMPLE=PERIOD[:WARMUP][,seed=N][,skip], or `vlgpu-sim replay --sample`)
times frame 0 and, in every block of PERIOD frames after it, one frame drawn at random from
the block's positions WARMUP..PERIOD-1 (src/vlgpu/sim/device/frame_sampling.h).  Each frame's
statistics row says its role (`sample`: measured, warmup, functional, skipped) and block
(`sample_block`, -1 for frame 0).  From those rows:

  * strata: frame 0 on its own, and each block; a block the run (or the range estimated)
    cuts before its measured frame has no sample and joins the stratum before it; a frame
    without a submit (a row with no role and 0 cycles) did no GPU work: known, in no stratum;
  * estimate of a stratum's cycles: its frame count N_h times its measured frame's cycles
    y_h (one frame drawn uniformly from the frames it could be: unbiased up to the warm-up
    positions, which hold the same animation as the others); the total T is their sum.
    Warm-up frames are timed but not used: they always precede a measured frame, so they
    are no random draw (and start from stale caches);
  * variance: one sample per stratum gives none per stratum, so adjacent strata are
    collapsed in pairs (the last three together when their number is odd) and
        v = sum over groups g of  L_g / (L_g - 1) * sum over h in g of
            (1 - 1/N_h) * (N_h y_h - N_h * Yhat_g / N_g)^2
    with L_g strata, N_g frames and Yhat_g = sum of N_h y_h in group g: the collapsed
    stratum estimator with sizes (K. M. Wolter, "Introduction to Variance Estimation",
    2nd ed., Springer 2007, "collapsed stratum estimator"; W. G. Cochran, "Sampling
    Techniques", 3rd ed., Wiley 1977, "collapsed strata").  It over-estimates the variance by the spread between the collapsed strata's
    means (conservative); a stratum whose every frame is measured (N_h = 1) adds nothing;
  * interval: T +- t * sqrt(v), t the two-sided Student quantile for the confidence level
    with sum(L_g - 1) degrees of freedom (per run); the sum over runs (independent: one
    glmark2 scene each) adds the variances, its degrees of freedom by Welch-Satterthwaite
    (combine()).

A run whose strata are all exact (PERIOD 1) has v = 0; one with a single sampled stratum
besides frame 0 has no variance estimate (interval None: "one block").

CLI: `scripts/sampling.py ROWS... [--truth ROWS...] [--first F] [--last L]`: ROWS is a
driver statistics frames.csv (VLGPU_STATS=DIR/, the `sample` and `sample_block` columns) or a
replay's frames.jsonl (`vlgpu-sim replay --sample`), one run each; --truth the same runs
timed in full (a plain cycle-mode run), to print the error.  Exit code 0, 2 on bad input
(a readable message naming the file).
"""

import argparse
import csv
import json
import math
import sys
from pathlib import Path

TIMED = ("measured", "warmup")


class SamplingError(Exception):
    """Rows that are not a sampled run's (message names the file)."""


def student_t(level, df):
    """Two-sided quantile of Student's t with DF degrees of freedom (the normal one when DF
    is None): scipy.stats (Debian python3-scipy)."""
    from scipy import stats
    q = 0.5 + level / 2
    return float(stats.norm.ppf(q) if df is None else stats.t.ppf(q, df))


def read_rows(path):
    """The frame rows of PATH (frames.csv or frames.jsonl) as dicts with int frame, int cycles,
    str sample, int sample_block.  @raises SamplingError on a missing column or a bad value."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise SamplingError(f"{path}: {e.strerror}") from None
    if path.suffix == ".jsonl":
        raw = []
        for i, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    raw.append((i, json.loads(line)))
                except ValueError as e:
                    raise SamplingError(f"{path}:{i}: not JSON: {e}") from None
    else:
        raw = [(i, r) for i, r in enumerate(csv.DictReader(text.splitlines()), 2)]
    rows = []
    for line, r in raw:
        try:
            rows.append({"frame": int(r["frame"]), "cycles": int(r["cycles"]),
                         "sample": str(r.get("sample") or ""),
                         "sample_block": int(r.get("sample_block", -1))})
        except (KeyError, TypeError, ValueError) as e:
            raise SamplingError(f"{path}:{line}: frame row without a valid "
                                f"frame/cycles/sample_block ({e!r})") from None
    return rows


def in_range(rows, first=None, last=None):
    """The ROWS of frames FIRST..LAST (inclusive; None: unbounded)."""
    return [r for r in rows if (first is None or r["frame"] >= first)
            and (last is None or r["frame"] <= last)]


def strata(rows, first=None, last=None):
    """The strata of one sampled run's ROWS over frames FIRST..LAST (inclusive; default all):
    a list of dicts {frames: N_h, y: measured cycles or None (exact: every frame measured),
    blocks: [block numbers], total: exact cycles when y is None}.
    @raises SamplingError when a row is not from a sampled run or a stratum has two
    measured frames."""
    sel = in_range(rows, first, last)
    if not sel:
        raise SamplingError("no frame in the range")
    by_block = {}
    empty = 0
    for r in sel:
        if r["sample"] == "" and r["cycles"] == 0:
            # a frame without a submit (its row has no role): no GPU work, known exactly
            empty += 1
            continue
        if r["sample"] not in ("measured", "warmup", "functional", "skipped"):
            raise SamplingError(f"frame {r['frame']}: no sampling role ({r['sample']!r}): "
                                "not a sampled run")
        by_block.setdefault(r["sample_block"], []).append(r)
    if not by_block:
        raise SamplingError(f"none of the {empty} frames has a sampling role: not a sampled run")
    out = []
    for b in sorted(by_block):
        fr = by_block[b]
        meas = [r for r in fr if r["sample"] == "measured"]
        if len(meas) > 1 and b >= 0:
            raise SamplingError(f"block {b}: {len(meas)} measured frames; a plan measures one")
        if b < 0:  # frame 0: its own stratum, timed in full
            out.append({"frames": len(fr), "y": None, "blocks": [b],
                        "total": sum(r["cycles"] for r in meas),
                        "unmeasured": len(fr) - len(meas)})
            continue
        if len(fr) == 1 and meas:
            out.append({"frames": 1, "y": None, "blocks": [b], "total": meas[0]["cycles"],
                        "unmeasured": 0})
        elif meas:
            out.append({"frames": len(fr), "y": meas[0]["cycles"], "blocks": [b]})
        else:
            # cut before its measured frame: joins the previous sampled stratum (or the
            # next one when it is the first)
            out.append({"frames": len(fr), "y": "join", "blocks": [b]})
    merged = []
    for s in out:
        if s["y"] == "join" and merged and merged[-1]["y"] not in (None, "join"):
            merged[-1]["frames"] += s["frames"]
            merged[-1]["blocks"] += s["blocks"]
        else:
            merged.append(s)
    for i, s in enumerate(merged):
        if s["y"] == "join":
            nxt = next((t for t in merged[i + 1:] if t["y"] not in (None, "join")), None)
            if nxt is None:
                raise SamplingError(f"blocks {s['blocks']}: no measured frame to stand for them")
            nxt["frames"] += s["frames"]
            nxt["blocks"] = s["blocks"] + nxt["blocks"]
    return [s for s in merged if s["y"] != "join"]


def estimate(rows, first=None, last=None, level=0.95):
    """Estimate one sampled run's cycles over frames FIRST..LAST.  Returns a dict: estimate,
    variance (None: no estimate possible), df, low, high (the LEVEL interval; None without a
    variance), frames, measured (frames whose cycles the estimate uses), strata."""
    st = strata(rows, first, last)
    exact = sum(s["total"] for s in st if s["y"] is None)
    sampled = [s for s in st if s["y"] is not None]
    for s in st:
        if s["y"] is None and s.get("unmeasured"):
            raise SamplingError(f"block {s['blocks']}: a stratum of one frame not measured")
    est = exact + sum(s["frames"] * s["y"] for s in sampled)
    # every stratum holds one measured frame (frame 0's and the exact ones: all theirs);
    # frames without a submit are in "frames" with their exact 0 cycles
    res = {"estimate": est, "frames": len(in_range(rows, first, last)), "measured": len(st), "strata": len(st)}
    if not sampled:
        res.update(variance=0.0, df=None, low=est, high=est)
        return res
    if len(sampled) < 2:
        res.update(variance=None, df=None, low=None, high=None)
        return res
    groups = [sampled[i:i + 2] for i in range(0, len(sampled), 2)]
    if len(groups[-1]) == 1:
        groups[-2] += groups.pop()
    var, df = 0.0, 0
    for g in groups:
        L = len(g)
        n_g = sum(s["frames"] for s in g)
        y_g = sum(s["frames"] * s["y"] for s in g)
        var += L / (L - 1) * sum((1 - 1 / s["frames"]) * (s["frames"] * s["y"]
                                                          - s["frames"] * y_g / n_g) ** 2
                                 for s in g)
        df += L - 1
    half = student_t(level, df) * math.sqrt(var)
    res.update(variance=var, df=df, low=est - half, high=est + half)
    return res


def satterthwaite_df(parts):
    """The degrees of freedom of a sum of independent variance estimates, PARTS a list of
    (variance, df): (sum v)^2 / sum(v^2 / df) (Welch-Satterthwaite; F. E. Satterthwaite,
    "An approximate distribution of estimates of variance components", Biometrics Bulletin
    2(6), 1946).  None (use the normal quantile) when every variance is 0 or a part has no df."""
    num = sum(v for v, _ in parts) ** 2
    if num == 0 or any(d is None for v, d in parts if v > 0):
        return None
    return num / sum(v * v / d for v, d in parts if v > 0)


def combine(estimates, level=0.95):
    """The sum of independent runs' estimates (dicts of estimate(); one glmark2 scene each):
    estimate, variance (the sum), df (satterthwaite_df) and the LEVEL interval (Student t
    of that df); variance None when a run has none."""
    est = sum(e["estimate"] for e in estimates)
    if any(e["variance"] is None for e in estimates):
        return {"estimate": est, "variance": None, "df": None, "low": None, "high": None}
    var = sum(e["variance"] for e in estimates)
    df = satterthwaite_df([(e["variance"], e["df"]) for e in estimates])
    half = student_t(level, df) * math.sqrt(var)
    return {"estimate": est, "variance": var, "df": df, "low": est - half, "high": est + half}


def mean(estimates, level=0.95):
    """The mean of independent estimates of one total (repetitions of a run, each with its
    own random plan): combine()'s sum divided by their number, its variance by the number
    squared; the degrees of freedom and the LEVEL interval as combine()'s."""
    c = combine(estimates, level)
    n = len(estimates)
    return {"estimate": c["estimate"] / n,
            "variance": None if c["variance"] is None else c["variance"] / n ** 2,
            "df": c["df"], "low": None if c["low"] is None else c["low"] / n,
            "high": None if c["high"] is None else c["high"] / n}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="The module docstring (scripts/sampling.py) gives the "
                                        "estimator and its sources.")
    ap.add_argument("rows", nargs="+", help="frames.csv (VLGPU_STATS dir) or frames.jsonl "
                                            "(vlgpu-sim replay) of sampled runs, one run each")
    ap.add_argument("--truth", nargs="*", default=[],
                    help="the same runs timed in full, in the same order: prints the error")
    ap.add_argument("--first", type=int, help="first frame estimated (default: the first row)")
    ap.add_argument("--last", type=int, help="last frame estimated (default: the last row)")
    ap.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    a = ap.parse_args(argv)
    if a.truth and len(a.truth) != len(a.rows):
        print(f"sampling: {len(a.rows)} runs but {len(a.truth)} --truth files", file=sys.stderr)
        return 2
    try:
        ests = []
        for i, p in enumerate(a.rows):
            try:
                e = estimate(read_rows(p), a.first, a.last, a.level)
            except SamplingError as x:
                raise SamplingError(x if str(x).startswith(str(p)) else f"{p}: {x}") from None
            ests.append(e)
            line = (f"{p}: {e['frames']} frames, {e['measured']} measured: "
                    f"{e['estimate']:.0f} cycles")
            if e["low"] is not None:
                line += f", {a.level:.0%} interval {e['low']:.0f} .. {e['high']:.0f}"
            else:
                line += " (no interval: one sampled block)"
            if a.truth:
                tr = read_rows(a.truth[i])
                t = sum(r["cycles"] for r in in_range(tr, a.first, a.last))
                if t == 0:
                    raise SamplingError(f"{a.truth[i]}: no cycles in the frames estimated (a "
                                        "functional-mode run?)")
                inside = e["low"] is not None and e["low"] <= t <= e["high"]
                where = ("no interval" if e["low"] is None
                         else "inside the interval" if inside else "OUTSIDE the interval")
                line += (f"; full run {t} cycles, error {100 * (e['estimate'] - t) / t:+.2f} %"
                         f" ({where})")
            print(line)
        if len(ests) > 1:
            c = combine(ests, a.level)
            print(f"total: {c['estimate']:.0f} cycles" + (
                f", {a.level:.0%} interval {c['low']:.0f} .. {c['high']:.0f}"
                if c["low"] is not None else ""))
    except SamplingError as e:
        print(f"sampling: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
