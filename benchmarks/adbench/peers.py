"""The peers' gradients of the same GMM objective and Jacobians of the same BA residual:
JAX (jit), PyTorch and autograd, in float64. Each tool is imported only when asked for;
`load(tool)` returns None and a note when it is not installed (pip install '.[bench]').

A GMM tool is built by gmm_<tool>(data) -> (objective(), gradient()), where objective()
returns the value as a float and gradient() returns (value, (g_alphas, g_means, g_qs, g_ls))
as NumPy arrays. A BA tool is built by ba_<tool>(cams, X, w, feats) -> (objective(),
jacobian()): the residuals (reproj (p, 2), weight (p,)) and the blocks (J (p, 2, 15), Jw (p,)).
"""
from __future__ import annotations

import importlib
import os

import numpy as np

from . import ba, gmm_xp

MODULES = {"jax": "jax", "torch": "torch", "autograd": "autograd"}
NAMES = {"jax": "JAX", "torch": "PyTorch", "autograd": "autograd"}


def load(tool: str):
    """(module, None) or (None, why it is skipped)."""
    try:
        module = importlib.import_module(MODULES[tool])
    except ImportError as e:
        return None, f"{NAMES[tool]} is not installed ({e}); pip install '.[bench]'"
    if tool == "jax":
        module.config.update("jax_enable_x64", True)
    if tool == "torch":
        module.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", module.get_num_threads())))
    return module, None


# ------------------------------------------------------------------ GMM

def gmm_jax(data):
    import jax
    import jax.numpy as jnp
    c = gmm_xp.Constants(data.x, len(data.alphas), data.wishart)
    f = lambda x, alphas, means, qs, ls: gmm_xp.gmm_objective(jnp, c, x, alphas, means, qs, ls)
    x, params = jnp.asarray(data.x), tuple(jnp.asarray(p) for p in data.params())
    obj = jax.jit(f)
    vg = jax.jit(jax.value_and_grad(f, argnums=(1, 2, 3, 4)))

    def objective():
        return float(obj(x, *params).block_until_ready())

    def gradient():
        v, g = jax.block_until_ready(vg(x, *params))
        return float(v), tuple(np.asarray(a) for a in g)
    return objective, gradient


def gmm_torch(data):
    import torch
    c = gmm_xp.Constants(data.x, len(data.alphas), data.wishart)
    c.lower, c.pos = torch.from_numpy(c.lower), torch.from_numpy(c.pos)
    x = torch.from_numpy(data.x)
    params = tuple(torch.tensor(p, requires_grad=True) for p in data.params())

    def objective():
        with torch.no_grad():
            return float(gmm_xp.gmm_objective(torch, c, x, *params))

    def gradient():
        v = gmm_xp.gmm_objective(torch, c, x, *params)
        g = torch.autograd.grad(v, params)
        return float(v.detach()), tuple(a.numpy() for a in g)
    return objective, gradient


def gmm_autograd(data):
    import autograd
    import autograd.numpy as anp
    c = gmm_xp.Constants(data.x, len(data.alphas), data.wishart)
    f = lambda ps: gmm_xp.gmm_objective(anp, c, data.x, *ps)
    vg = autograd.value_and_grad(f)
    params = data.params()

    def objective():
        return float(f(params))

    def gradient():
        v, g = vg(params)
        return float(v), tuple(np.asarray(a) for a in g)
    return objective, gradient


# ------------------------------------------------------------------ BA

def ba_jax(cams, X, w, feats):
    """jax.vmap of jax.jacfwd of one observation's residual."""
    import jax
    import jax.numpy as jnp
    one = lambda cam, x, wi, feat: ba.reproj_error_xp(jnp, cam, x, wi, feat)
    jac = jax.jit(jax.vmap(jax.jacfwd(one, argnums=(0, 1, 2))))
    jac_w = jax.jit(jax.vmap(jax.grad(lambda wi: 1.0 - wi * wi)))
    res = jax.jit(lambda c, x, wi, f: (ba.reproj_error_xp(jnp, c, x, wi, f), 1.0 - wi * wi))
    args = tuple(jnp.asarray(a) for a in (cams, X, w, feats))

    def objective():
        r, e = jax.block_until_ready(res(*args))
        return np.asarray(r), np.asarray(e)

    def jacobian():
        jc, jx, jwr = jax.block_until_ready(jac(*args))
        jw = jax.block_until_ready(jac_w(args[2]))
        return np.concatenate([np.asarray(jc), np.asarray(jx), np.asarray(jwr)[:, :, None]], axis=2), np.asarray(jw)
    return objective, jacobian


def ba_torch(cams, X, w, feats):
    """torch.func.vmap of torch.func.jacrev of one observation's residual."""
    import torch
    from torch.func import grad, jacrev, vmap
    one = lambda cam, x, wi, feat: ba.reproj_error_xp(torch, cam, x, wi, feat)
    jac = vmap(jacrev(one, argnums=(0, 1, 2)))
    jac_w = vmap(grad(lambda wi: 1.0 - wi * wi))
    args = tuple(torch.from_numpy(np.ascontiguousarray(a)) for a in (cams, X, w, feats))

    def objective():
        with torch.no_grad():
            return ba.reproj_error_xp(torch, *args).numpy(), (1.0 - args[2] * args[2]).numpy()

    def jacobian():
        jc, jx, jwr = jac(*args)
        return torch.cat([jc, jx, jwr[:, :, None]], dim=2).numpy(), jac_w(args[2]).numpy()
    return objective, jacobian


def ba_autograd(cams, X, w, feats):
    """The vjp trick of ba.py on the whole residual: two reverse passes for the 2 x 15 blocks."""
    import autograd
    import autograd.numpy as anp
    f = lambda ps: ba.reproj_error_xp(anp, ps[0], ps[1], ps[2], feats)
    fw = lambda wi: 1.0 - wi * wi
    params = (cams, X, w)

    def objective():
        return f(params), fw(w)

    def jacobian():
        vjp, out = autograd.make_vjp(f)(params)
        rows = []
        for r in range(2):
            ct = np.zeros_like(out)
            ct[:, r] = 1.0
            dc, dx, dw = vjp(ct)
            rows.append(np.hstack([dc, dx, dw[:, None]]))
        vjp_w, out_w = autograd.make_vjp(fw)(w)
        return np.stack(rows, axis=1), vjp_w(np.ones_like(out_w))
    return objective, jacobian


# ------------------------------------------------------------------ LSTM

def lstm_jax(data):
    """jax.jit of the loss with the loop over the characters as jax.lax.scan and the loop over
    the layers a Python loop in the scanned step (unrolled: l copies)."""
    import jax
    import jax.numpy as jnp
    from . import lstm

    def f(main, extra, state, seq):
        def step(carry, t):
            s, inp = carry
            s, ypred = lstm.lstm_step_xp(jnp, main, extra, s, inp)
            ygold = seq[t + 1]
            return (s, ygold), jnp.sum(ygold * (ypred - jnp.log(jnp.sum(jnp.exp(ypred)) + 2.0)))
        s = tuple(state[i] for i in range(state.shape[0]))
        _, terms = jax.lax.scan(step, (s, seq[0]), jnp.arange(seq.shape[0] - 1))
        return -jnp.sum(terms) / ((seq.shape[0] - 1) * seq.shape[1])
    return _jax_tool(jax, f, data)


def lstm_jax_unrolled(data):
    """jax.jit of the loss with its Python loops, as written (traced, so unrolled: (c - 1) l
    layer steps; its compile time grows with c: minutes at c = 1024)."""
    import jax
    import jax.numpy as jnp
    from . import lstm
    return _jax_tool(jax, lambda *a: lstm.lstm_objective_xp(jnp, *a), data)


def _jax_tool(jax, f, data):
    import jax.numpy as jnp
    args = tuple(jnp.asarray(a) for a in data.args())
    obj = jax.jit(f)
    vg = jax.jit(jax.value_and_grad(f, argnums=(0, 1)))

    def objective():
        return float(obj(*args).block_until_ready())

    def gradient():
        v, g = jax.block_until_ready(vg(*args))
        return float(v), tuple(np.asarray(a) for a in g)
    return objective, gradient


def lstm_torch(data):
    """PyTorch, eager, with the same loops (ADBench's PyTorch module)."""
    import torch
    from . import lstm
    main, extra, state, seq = (torch.from_numpy(np.ascontiguousarray(a)) for a in data.args())
    params = (main.clone().requires_grad_(True), extra.clone().requires_grad_(True))

    def objective():
        with torch.no_grad():
            return float(lstm.lstm_objective_xp(torch, *params, state, seq))

    def gradient():
        v = lstm.lstm_objective_xp(torch, *params, state, seq)
        g = torch.autograd.grad(v, params)
        return float(v.detach()), tuple(a.numpy() for a in g)
    return objective, gradient
