"""Agreement checks, central differences, the table of times and the optional plot shared by the
ADBench scripts."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class Checks:
    """Agreement checks: each failure is printed at once and kept, so a run reports them all."""

    def __init__(self):
        self.failures: list[str] = []

    def close(self, what: str, got, want, rtol: float, atol=0.0) -> bool:
        """|got - want| <= atol + rtol |want| everywhere (atol a number or an array like want)."""
        got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
        if got.shape != want.shape:
            return self._fail(f"{what}: shape {got.shape}, expected {want.shape}")
        allowed = np.broadcast_to(atol + rtol * np.abs(want), want.shape)
        bad = ~(np.abs(got - want) <= allowed)
        if bad.any():
            k = np.unravel_index(np.argmax(np.where(bad, np.abs(got - want) - allowed, -np.inf)), got.shape)
            return self._fail(f"{what}: {bad.sum()} of {got.size} entries differ; worst at "
                              f"{tuple(int(i) for i in k)}: {got[k]!r} vs {want[k]!r} (allowed {allowed[k]:.3g})")
        return True

    def _fail(self, message: str) -> bool:
        print(f"MISMATCH {message}", flush=True)
        self.failures.append(message)
        return False


def scaled_atol(want, rtol: float) -> float:
    """Gradients and Jacobians hold entries of very different sizes: a tiny entry is compared
    relative to the largest one (it is a sum of terms of that size)."""
    return rtol * float(np.max(np.abs(np.concatenate([np.ravel(w) for w in want]))))


@dataclass
class Row:
    size: str
    tool: str                       # "catad/index", "catad/numpy", "numpy", "jax", ...
    objective: float | None         # seconds
    gradient: float | None          # seconds
    compile: float | None = None    # catad: seconds to compile the gradient (its first call)
    note: str = ""


def ratio(a, b) -> str:
    return f"{a / b:.2f}" if a is not None and b else "-"


def ms(t) -> str:
    return f"{t * 1e3:.3f}" if t is not None else "-"


def table(rows: list[Row], gradient_word: str = "gradient", short: str = "grad") -> str:
    """size, tool, objective ms, gradient ms, gradient/objective, catad/JAX, catad/PyTorch
    (catad's gradient time over the peer's, same size), catad's compile time in seconds."""
    head = ["size", "tool", "objective ms", f"{gradient_word} ms", f"{short}/obj", "catad/JAX",
            "catad/PyTorch", "compile s"]
    lines = [head]
    for r in rows:
        peer = {p.tool: p.gradient for p in rows if p.size == r.size}
        catad = r.tool.startswith("catad")
        lines.append([r.size, r.tool, ms(r.objective), ms(r.gradient), ratio(r.gradient, r.objective),
                      ratio(r.gradient, peer.get("jax")) if catad else "-",
                      ratio(r.gradient, peer.get("torch")) if catad else "-",
                      f"{r.compile:.2f}" if r.compile is not None else "-"])
        if r.note:
            lines[-1].append(r.note)
    widths = [max(len(line[i]) for line in lines if i < len(line)) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths)))
                     + ("  " + line[-1] if len(line) > len(head) else "") for line in lines)


def plot(rows: list[Row], path: str, title: str, gradient_word: str = "gradient") -> None:
    """Bars of the gradient time of each tool, grouped by size."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no plot: matplotlib is not installed; pip install '.[bench]')")
        return
    sizes = list(dict.fromkeys(r.size for r in rows))
    tools = list(dict.fromkeys(r.tool for r in rows if r.gradient is not None))
    fig, ax = plt.subplots(figsize=(1.6 + 1.4 * len(sizes) * max(1, len(tools)) / 3, 4))
    width = 0.8 / max(1, len(tools))
    times = [r.gradient for r in rows if r.gradient is not None]
    if times and max(times) > 20 * min(times):
        ax.set_yscale("log")  # else linear: short bars on a log axis exaggerate small differences
    for k, tool in enumerate(tools):
        xs, ys = [], []
        for i, s in enumerate(sizes):
            t = next((r.gradient for r in rows if r.size == s and r.tool == tool), None)
            if t is not None:
                xs.append(i + (k - (len(tools) - 1) / 2) * width)
                ys.append(t * 1e3)
        ax.bar(xs, ys, width, label=tool)
    ax.set_xticks(range(len(sizes)), sizes)
    ax.set_ylabel(f"{gradient_word} time (ms, median)")
    ax.set_title(title)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot saved to {path}")


def central_differences(objective, params: tuple, coords: list, h: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
    """(derivatives, error bounds) of objective at params along coords = [(argument, flat index)]:
    a step h times the coordinate's size; the bound is the rounding error of the difference,
    plus a relative 1e-6 for the truncation error."""
    out, bound = [], []
    f0 = abs(objective(*params))
    for a, i in coords:
        step = h * max(1.0, abs(params[a].flat[i]))
        plus, minus = [p.copy() for p in params], [p.copy() for p in params]
        plus[a].flat[i] += step
        minus[a].flat[i] -= step
        d = (objective(*plus) - objective(*minus)) / (2 * step)
        out.append(d)
        bound.append(100 * np.finfo(float).eps * f0 / step + 1e-6 * abs(d))
    return np.array(out), np.array(bound)
