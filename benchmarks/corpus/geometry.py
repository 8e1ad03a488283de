"""Geometry: areas and volumes, rotations, distances, curves and meshes, camera projection and
shape registration, written as graphics and vision code is (np.cross, np.linalg, np.roll)."""
import math

import numpy as np

from ._registry import case


# Shoelace formula for the area of a simple polygon; Wikipedia "Shoelace formula"
# (Meister 1769, Gauss 1795): A = 1/2 |sum x_i y_{i+1} - x_{i+1} y_i|.
def polygon_area(P):
    x, y = P[:, 0], P[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


# Surface area of a triangle mesh; Botsch et al., "Polygon Mesh Processing" (2010), section 1.3:
# each triangle's area is half the norm of the cross product of two edges.
def mesh_surface_area(V, F):
    a, b, c = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    return 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1).sum()


# Volume enclosed by a closed triangle mesh by signed tetrahedra (divergence theorem); Zhang &
# Chen, "Efficient feature extraction for 2D/3D objects in mesh representation", ICIP 2001, eq. 3:
# V = 1/6 sum det[a, b, c].
def mesh_volume(V, F):
    tets = np.stack([V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]], axis=1)    # (m, 3, 3)
    return np.sum(np.linalg.det(tets)) / 6.0


# Distance from points to a segment, clamped projection; Ericson, "Real-Time Collision Detection"
# (2005), section 5.1.2.
def point_segment_distance(P, a, b):
    ab = b - a
    t = np.clip((P - a) @ ab / (ab @ ab), 0.0, 1.0)
    closest = a + t[:, None] * ab
    return np.sum(np.linalg.norm(P - closest, axis=1))


# Rotation by a unit quaternion, v' = q v q*, in its expanded form v + 2 w (u x v) + 2 u x (u x v);
# Wikipedia "Quaternions and spatial rotation"; the loss aligns rotated points with targets.
def quaternion_rotation_loss(q, P, target):
    q = q / np.linalg.norm(q)
    w, u = q[0], q[1:]
    uv = np.cross(u, P)
    rotated = P + 2.0 * w * uv + 2.0 * np.cross(u, uv)
    return np.sum((rotated - target) ** 2)


# Rodrigues' rotation formula, R = I + sin(t) K + (1 - cos(t)) K^2, K the cross-product matrix
# of the unit axis; Wikipedia "Rodrigues' rotation formula" (matrix notation).
def rodrigues_loss(r, P, target):
    theta = np.linalg.norm(r)
    k = r / theta
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    R = np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * (K @ K)
    return np.sum((P @ R.T - target) ** 2)


# Rotation from Z-Y-X Euler angles (yaw, pitch, roll); Diebel, "Representing attitude: Euler
# angles, unit quaternions, and rotation vectors" (2006), eq. 67 (as the product of three rotations).
def euler_rotation_loss(angles, P, target):
    yaw, pitch, roll = angles
    cz, sz = np.cos(yaw), np.sin(yaw)
    cy, sy = np.cos(pitch), np.sin(pitch)
    cx, sx = np.cos(roll), np.sin(roll)
    Rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    Ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    Rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    R = Rz @ Ry @ Rx
    return np.sum((P @ R.T - target) ** 2)


# Orthogonal Procrustes / Kabsch alignment residual; Kabsch, "A solution for the best rotation to
# relate two sets of vectors", Acta Cryst. A32, 1976; the rotation from the SVD of the covariance.
def kabsch_rmsd(P, Q):
    Pc = P - P.mean(axis=0)
    Qc = Q - Q.mean(axis=0)
    H = Pc.T @ Qc
    U, S, Vt = np.linalg.svd(H)
    d = np.sign(np.linalg.det(Vt.T @ U.T))
    D = np.diag([1.0, 1.0, d])
    R = Vt.T @ D @ U.T
    return np.sqrt(np.mean(np.sum((Pc @ R.T - Qc) ** 2, axis=1)))


# Circumradius of triangles, R = abc / (4 K); Wikipedia "Circumscribed circle" (triangles), K by
# Heron's formula.
def circumradius_sum(A, B, C):
    a = np.linalg.norm(B - C, axis=1)
    b = np.linalg.norm(C - A, axis=1)
    c = np.linalg.norm(A - B, axis=1)
    s = (a + b + c) / 2
    K = np.sqrt(s * (s - a) * (s - b) * (s - c))
    return np.sum(a * b * c / (4 * K))


# Algebraic least-squares circle fit; Kåsa, "A circle fitting procedure and its error analysis",
# IEEE Trans. Instrum. Meas. 25(1), 1976: sum (|p - c|^2 - r^2)^2.
def circle_fit_kasa(params, P):
    cx, cy, r = params
    return np.sum(((P[:, 0] - cx) ** 2 + (P[:, 1] - cy) ** 2 - r ** 2) ** 2)


# Geometric circle fit; Chernov, "Circular and Linear Regression: Fitting Circles and Lines by
# Least Squares" (2010), eq. 3.1: sum (|p - c| - r)^2.
def circle_fit_geometric(params, P):
    c = params[:2]
    r = params[2]
    return np.sum((np.hypot(P[:, 0] - c[0], P[:, 1] - c[1]) - r) ** 2)


# Length of a cubic Bézier curve by de Casteljau's algorithm on a parameter grid; Farin, "Curves
# and Surfaces for CAGD" 5th ed. (2002), section 4.2; the length as a polyline.
def bezier_length(ctrl, samples=16):
    ts = np.linspace(0.0, 1.0, samples)
    pts = []
    for t in ts:
        p = ctrl.copy()
        for r in range(1, len(ctrl)):
            p = (1 - t) * p[:-1] + t * p[1:]
        pts.append(p[0])
    pts = np.array(pts)
    return np.sum(np.linalg.norm(np.diff(pts, axis=0), axis=1))


# Angle between vectors, arccos of the clipped cosine; Wikipedia "Dot product" (geometric
# definition); summed over pairs of rows.
def angle_between(U, V):
    cos = np.sum(U * V, axis=1) / (np.linalg.norm(U, axis=1) * np.linalg.norm(V, axis=1))
    return np.sum(np.arccos(np.clip(cos, -1.0, 1.0)))


# Great-circle distance by the haversine formula; Sinnott, "Virtues of the haversine", Sky and
# Telescope 68(2), 1984; Wikipedia "Haversine formula". Angles in degrees.
def haversine_path_length(lat, lon, radius=6371.0):
    phi = np.radians(lat)
    lam = np.radians(lon)
    dphi = np.diff(phi)
    dlam = np.diff(lam)
    a = np.sin(dphi / 2) ** 2 + np.cos(phi[:-1]) * np.cos(phi[1:]) * np.sin(dlam / 2) ** 2
    return np.sum(2 * radius * np.arcsin(np.sqrt(a)))


# Pinhole camera reprojection error; Hartley & Zisserman, "Multiple View Geometry" 2nd ed.
# (2004), eq. 6.8: x = K [R | t] X, with a small-angle rotation (R = I + [w]x).
def pinhole_reprojection(pose, K, X, uv):
    w, t = pose[:3], pose[3:]
    R = np.eye(3) + np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
    Xc = X @ R.T + t
    proj = Xc @ K.T
    pix = proj[:, :2] / proj[:, 2:3]
    return np.sum((pix - uv) ** 2)


# Uniform Laplacian smoothness energy of a closed polyline; Taubin, "A signal processing approach
# to fair surface design", SIGGRAPH 1995, eq. 5 (umbrella operator): sum |x_i - (x_{i-1} + x_{i+1})/2|^2.
def laplacian_energy(P):
    lap = P - 0.5 * (np.roll(P, 1, axis=0) + np.roll(P, -1, axis=0))
    return np.sum(lap ** 2)


# Signed distance to a box and to a sphere, combined by a smooth minimum; Quilez, "Distance
# functions" (https://iquilezles.org/articles/distfunctions) and "Smooth minimum" (polynomial smin).
def sdf_smooth_union(P, center, radius, half, k=0.3):
    d_sphere = np.linalg.norm(P - center, axis=1) - radius
    q = np.abs(P) - half
    d_box = np.linalg.norm(np.maximum(q, 0.0), axis=1) + np.minimum(np.max(q, axis=1), 0.0)
    h = np.clip(0.5 + 0.5 * (d_box - d_sphere) / k, 0.0, 1.0)
    d = d_box * (1 - h) + d_sphere * h - k * h * (1 - h)
    return np.sum(d ** 2)


# Chamfer distance between point sets; Barrow et al., "Parametric correspondence and chamfer
# matching", IJCAI 1977; the squared form of Fan, Su & Guibas, "A point set generation network",
# CVPR 2017, eq. 1.
def chamfer_distance(A, B):
    d2 = np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=-1)
    return d2.min(axis=1).mean() + d2.min(axis=0).mean()


# Discrete total (turning-angle) curvature of a polyline; Sullivan, "Curves of finite total
# curvature", in Discrete Differential Geometry (2008), section 2: the sum of exterior angles.
def total_turning_angle(P):
    e = P[1:] - P[:-1]
    ang = np.arctan2(e[:, 1], e[:, 0])
    turn = np.diff(ang)
    turn = (turn + np.pi) % (2 * np.pi) - np.pi
    return np.sum(turn ** 2)


# Barycentric coordinates of points in a triangle; Ericson (2005) section 3.4 (by Cramer's rule);
# the loss pulls them towards given weights.
def barycentric_loss(tri, P, target):
    v0, v1 = tri[1] - tri[0], tri[2] - tri[0]
    v2 = P - tri[0]
    d00, d01, d11 = v0 @ v0, v0 @ v1, v1 @ v1
    d20, d21 = v2 @ v0, v2 @ v1
    denom = d00 * d11 - d01 * d01
    v = (d11 * d20 - d01 * d21) / denom
    w = (d00 * d21 - d01 * d20) / denom
    u = 1.0 - v - w
    return np.sum((np.stack([u, v, w], axis=1) - target) ** 2)


def _icosahedron_like(rng):
    # an octahedron, outward oriented, jittered
    V = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=float)
    F = np.array([[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]])
    return (V + rng.uniform(-0.1, 0.1, size=V.shape), F)


def _rotation_targets(rng):
    P = rng.normal(size=(6, 3))
    return P, P[:, [1, 0, 2]] * np.array([-1, 1, 1]) + rng.normal(size=(6, 3)) * 0.05


def _polygon(rng, n=7):
    ang = np.sort(rng.uniform(0, 2 * np.pi, size=n))
    r = rng.uniform(0.8, 1.2, size=n)
    return np.column_stack([r * np.cos(ang), r * np.sin(ang)])


def _camera(rng):
    K = np.array([[500.0, 0.0, 320.0], [0.0, 500.0, 240.0], [0.0, 0.0, 1.0]])
    X = rng.uniform(-1, 1, size=(6, 3)) + np.array([0, 0, 5.0])
    uv = (X @ K.T)[:, :2] / X[:, 2:3] + rng.normal(size=(6, 2))
    return (rng.normal(size=6) * 0.01, K, X, uv)


def _sdf(rng):
    P = rng.uniform(-1.5, 1.5, size=(10, 3))
    return (P, np.array([0.5, 0.2, 0.1]), 0.6, np.array([0.5, 0.4, 0.3]))


def _barycentric(rng):
    tri = np.array([[0.0, 0.0], [1.0, 0.1], [0.2, 1.0]]) + rng.normal(size=(3, 2)) * 0.05
    return (tri, rng.uniform(0.1, 0.5, size=(5, 2)), rng.dirichlet(np.ones(3), size=5))


CASES = [
    case(polygon_area, lambda rng: (_polygon(rng),)),
    case(mesh_surface_area, _icosahedron_like),
    case(mesh_volume, _icosahedron_like),
    case(point_segment_distance, lambda rng: (rng.normal(size=(6, 3)), np.array([-1.0, 0.0, 0.0]), np.array([1.0, 0.5, 0.0])),
         argnums=(0, 1, 2)),
    case(quaternion_rotation_loss, lambda rng: (np.array([0.9, 0.1, -0.2, 0.3]),) + _rotation_targets(rng)),
    case(rodrigues_loss, lambda rng: (np.array([0.1, -0.2, 0.7]),) + _rotation_targets(rng)),
    case(euler_rotation_loss, lambda rng: (np.array([0.3, -0.2, 0.1]),) + _rotation_targets(rng)),
    case(kabsch_rmsd, lambda rng: _rotation_targets(rng), argnums=(0, 1)),
    case(circumradius_sum, lambda rng: (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 3))),
         argnums=(0, 1, 2)),
    case(circle_fit_kasa, lambda rng: (np.array([0.1, -0.1, 0.9]), _polygon(rng, 10))),
    case(circle_fit_geometric, lambda rng: (np.array([0.1, -0.1, 0.9]), _polygon(rng, 10))),
    case(bezier_length, lambda rng: (rng.normal(size=(4, 2)),)),
    case(angle_between, lambda rng: (rng.normal(size=(5, 3)), rng.normal(size=(5, 3))), argnums=(0, 1)),
    case(haversine_path_length, lambda rng: (rng.uniform(-60, 60, size=6), rng.uniform(-170, 170, size=6)), argnums=(0, 1)),
    case(pinhole_reprojection, _camera),
    case(laplacian_energy, lambda rng: (_polygon(rng, 8),)),
    case(sdf_smooth_union, _sdf, argnums=(0, 1, 2)),
    case(chamfer_distance, lambda rng: (rng.normal(size=(6, 2)), rng.normal(size=(7, 2))), argnums=(0, 1)),
    case(total_turning_angle, lambda rng: (np.cumsum(rng.normal(size=(8, 2)) + np.array([1.0, 0.0]), axis=0),)),
    case(barycentric_loss, _barycentric, argnums=(0, 1)),
]
