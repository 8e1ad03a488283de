"""ADBench's bundle-adjustment residual and its per-observation Jacobian blocks.

Observation i has 2 reprojection residuals w_i (project(cam_i, X_i) - feat_i), depending on
15 parameters (camera 11, point 3, weight 1), and the weight residual 1 - w_i^2. project
rotates X - C by the camera's Rodrigues vector, divides by depth, applies the radial
distortion 1 + k1 r^2 + k2 r^4 and scales by the focal length around the principal point
(ADBench's ba.h). Camera layout: rotation 0:3, center 3:6, focal 6, principal point 7:9,
radial 9:11.

All functions here work on the arrays gathered per observation: cams (p, 11), X (p, 3),
w (p,), feats (p, 2) (io.Ba.gathered).

The Jacobian trick. Row i of the residual depends only on row i of the inputs, so the
Jacobian of the whole (p, 2) residual is block diagonal with one 2 x 15 block per
observation. A vector-Jacobian product with the cotangent that is 1 in residual component r
of every row and 0 elsewhere therefore returns, in row i of each input cotangent, exactly row
r of observation i's block: two reverse passes (catad.vjp, r = 0, 1) give all p blocks, as 15
forward passes (jvp with a tangent of ones in one parameter column) would. The weight
residual's 1 x 1 blocks come from one vjp with a cotangent of ones.
"""
import numpy as np

# ------------------------------------------------------------------ catad (numpy-style, by columns)


def project(cams, X):
    """The projections (u, v), each (p,), of points X (p, 3) by cameras cams (p, 11)."""
    p0, p1, p2 = X[:, 0] - cams[:, 3], X[:, 1] - cams[:, 4], X[:, 2] - cams[:, 5]
    r0, r1, r2 = cams[:, 0], cams[:, 1], cams[:, 2]
    sqtheta = r0 * r0 + r1 * r1 + r2 * r2
    turns = sqtheta != 0.0
    theta = np.sqrt(np.where(turns, sqtheta, 1.0))
    ct, st = np.cos(theta), np.sin(theta)
    w0, w1, w2 = r0 / theta, r1 / theta, r2 / theta
    tmp = (w0 * p0 + w1 * p1 + w2 * p2) * (1.0 - ct)
    # Rodrigues: p cos + (w x p) sin + w (w . p)(1 - cos); at theta = 0, p + r x p
    x0 = np.where(turns, p0 * ct + (w1 * p2 - w2 * p1) * st + w0 * tmp, p0 + r1 * p2 - r2 * p1)
    x1 = np.where(turns, p1 * ct + (w2 * p0 - w0 * p2) * st + w1 * tmp, p1 + r2 * p0 - r0 * p2)
    x2 = np.where(turns, p2 * ct + (w0 * p1 - w1 * p0) * st + w2 * tmp, p2 + r0 * p1 - r1 * p0)
    u, v = x0 / x2, x1 / x2
    rsq = u * u + v * v
    distortion = 1.0 + cams[:, 9] * rsq + cams[:, 10] * rsq * rsq
    f = cams[:, 6]
    return u * distortion * f + cams[:, 7], v * distortion * f + cams[:, 8]


def reproj_error(cams, X, w, feats):
    """(p, 2): w (projection - feature)."""
    u, v = project(cams, X)
    return np.array([w * (u - feats[:, 0]), w * (v - feats[:, 1])]).T


def weight_error(w):
    return 1.0 - w * w


def catad_jacobian(cams, X, w, feats, reproj=reproj_error, weight=weight_error):
    """(J (p, 2, 15), Jw (p,)) by the vjp trick above (reproj and weight: the functions
    differentiated, these or copies of them)."""
    import catad
    out, vjp_fn = catad.vjp(reproj, cams, X, w, feats)
    rows = []
    for r in range(2):
        ct = np.zeros_like(out)
        ct[:, r] = 1.0
        dcams, dX, dw, _ = vjp_fn(ct)
        rows.append(np.hstack([dcams, dX, dw[:, None]]))
    _, vjp_w = catad.vjp(weight, w)
    (jw,) = vjp_w(np.ones_like(w))
    return np.stack(rows, axis=1), jw


# ------------------------------------------------------------------ the NumPy API (numpy, jax, torch, autograd)


def reproj_error_xp(xp, cam, X, w, feat):
    """reproj_error for arrays with any leading axes (one observation: cam (11,), X (3,), w (),
    feat (2,)); xp is numpy, jax.numpy, autograd.numpy or torch."""
    rot, pt = cam[..., 0:3], X - cam[..., 3:6]
    sqtheta = xp.sum(rot * rot, axis=-1)
    turns = sqtheta != 0.0
    theta = xp.sqrt(xp.where(turns, sqtheta, 1.0))[..., None]
    wv = rot / theta
    ct, st = xp.cos(theta), xp.sin(theta)
    rotated = xp.where(turns[..., None],
                       pt * ct + cross(xp, wv, pt) * st + wv * (xp.sum(wv * pt, axis=-1)[..., None] * (1.0 - ct)),
                       pt + cross(xp, rot, pt))
    proj = rotated[..., 0:2] / rotated[..., 2:3]
    rsq = xp.sum(proj * proj, axis=-1)[..., None]
    distorted = proj * (1.0 + cam[..., 9:10] * rsq + cam[..., 10:11] * rsq * rsq)
    return w[..., None] * (distorted * cam[..., 6:7] + cam[..., 7:9] - feat)


def cross(xp, a, b):
    return xp.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def numpy_residuals(cams, X, w, feats):
    """The hand-written NumPy objective: (reprojection errors (p, 2), weight errors (p,))."""
    return reproj_error_xp(np, cams, X, w, feats), 1.0 - w * w


def central_difference_jacobian(cams, X, w, feats, h=1e-6):
    """(J (p, 2, 15), Jw (p,)) by central differences of numpy_residuals, all observations at
    once: moving parameter j of every row moves only that row's residuals. The step is h times
    the parameter's size (at least h)."""
    params = np.hstack([cams, X, w[:, None]])
    J = np.empty((len(w), 2, 15))
    jw = np.empty(len(w))
    for j in range(15):
        step = h * np.maximum(1.0, np.abs(params[:, j]))
        plus, minus = params.copy(), params.copy()
        plus[:, j] += step
        minus[:, j] -= step
        rp, wp = numpy_residuals(plus[:, :11], plus[:, 11:14], plus[:, 14], feats)
        rm, wm = numpy_residuals(minus[:, :11], minus[:, 11:14], minus[:, 14], feats)
        J[:, :, j] = (rp - rm) / (2 * step[:, None])
        if j == 14:
            jw = (wp - wm) / (2 * step)
    return J, jw
