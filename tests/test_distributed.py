"""catad.distributed (issue 18): the map-reduce split of objectives summed over rows of data,
run on a real dask.distributed LocalCluster (2 worker processes), against catad.value_and_grad
on the whole data in one process; and the refusals of objectives that mix rows."""
import os
import signal
import threading
import time

import numpy as np
import pytest

dask = pytest.importorskip("dask", reason="catad.distributed needs dask (pip install 'catad[dask]')")
distributed = pytest.importorskip("distributed",
                                  reason="catad.distributed needs distributed (pip install 'catad[dask]')")
import dask.array as da  # noqa: E402
from scipy.special import logsumexp  # noqa: E402

import catad  # noqa: E402
import catad.distributed as cd  # noqa: E402
from adbench import gmm_numpy  # noqa: E402

pytestmark = pytest.mark.dask


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       silence_logs=40)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _close(got, ref, argnums):
    value, grads = got
    rvalue, rgrads = ref
    assert value == pytest.approx(rvalue, rel=1e-12, abs=1e-12)
    if isinstance(argnums, int):
        grads, rgrads = (grads,), (rgrads,)
    for g, r in zip(grads, rgrads):
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- objectives

def logistic(w, b, X, y):
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z) + 0.5e-2 * np.sum(w * w)


def mlp(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.sum((out - y) ** 2) / len(X) + 1e-3 * (np.sum(W1 * W1) + np.sum(W2 * W2))


def project(cams, pts, ci, pi):
    """ADBench's BA projection (rotation by the Rodrigues vector, radial distortion) of the
    points pts[pi] by the cameras cams[ci], one observation per row."""
    c, X = cams[ci], pts[pi]
    p0, p1, p2 = X[:, 0] - c[:, 3], X[:, 1] - c[:, 4], X[:, 2] - c[:, 5]
    r0, r1, r2 = c[:, 0], c[:, 1], c[:, 2]
    theta = np.sqrt(r0 * r0 + r1 * r1 + r2 * r2)
    ct, st = np.cos(theta), np.sin(theta)
    w0, w1, w2 = r0 / theta, r1 / theta, r2 / theta
    tmp = (w0 * p0 + w1 * p1 + w2 * p2) * (1.0 - ct)
    x0 = p0 * ct + (w1 * p2 - w2 * p1) * st + w0 * tmp
    x1 = p1 * ct + (w2 * p0 - w0 * p2) * st + w1 * tmp
    x2 = p2 * ct + (w0 * p1 - w1 * p0) * st + w2 * tmp
    u, v = x0 / x2, x1 / x2
    rsq = u * u + v * v
    dist = 1.0 + c[:, 9] * rsq + c[:, 10] * rsq * rsq
    return u * dist * c[:, 6] + c[:, 7], v * dist * c[:, 6] + c[:, 8]


def ba_sse(cams, pts, ci, pi, feats, w):
    """The BA residual sum of squares: weighted reprojection errors and the weight residuals."""
    u, v = project(cams, pts, ci, pi)
    return np.sum((w * (u - feats[:, 0])) ** 2 + (w * (v - feats[:, 1])) ** 2) + np.sum((1.0 - w * w) ** 2)


def gmm_args(rng, n, d=3, k=4):
    return (rng.normal(size=k), rng.normal(size=(k, d)), 0.1 * rng.normal(size=(k, d)),
            rng.normal(size=(k, d * (d - 1) // 2)), rng.normal(size=(n, d)), (1.0, 0),
            gmm_numpy.tril_positions(d))


def ba_args(rng, n, ncams=3, npts=5):
    cams = np.concatenate([0.3 * rng.normal(size=(ncams, 3)), rng.normal(size=(ncams, 3)),
                           1.0 + rng.random((ncams, 1)), 0.1 * rng.normal(size=(ncams, 2)),
                           0.01 * rng.normal(size=(ncams, 2))], axis=1)
    pts = rng.normal(size=(npts, 3)) + np.array([0.0, 0.0, 8.0])
    return cams, pts, rng.integers(0, ncams, n), rng.integers(0, npts, n), rng.normal(size=(n, 2)), rng.random(n)


# ---------------------------------------------------------------- on the cluster

def test_gmm_on_cluster(client):
    args = gmm_args(np.random.default_rng(0), 300)
    nums = (0, 1, 2, 3)
    ref = catad.value_and_grad(gmm_numpy.gmm_objective, argnums=nums)(*args)
    got = cd.value_and_grad(gmm_numpy.gmm_objective, argnums=nums, data=(4,), chunks=70)(*args)
    _close(got, ref, nums)


def test_ba_residual_on_cluster(client):
    args = ba_args(np.random.default_rng(1), 250)
    ref = catad.value_and_grad(ba_sse, argnums=(0, 1))(*args)
    got = cd.value_and_grad(ba_sse, argnums=(0, 1), data=(2, 3, 4, 5), chunks=64)(*args)
    _close(got, ref, (0, 1))


def test_logistic_regression_dask_array_input(client):
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(400, 5)), (rng.random(400) > 0.5).astype(float)
    w, b = rng.normal(size=5), 0.3
    ref = catad.value_and_grad(logistic, argnums=(0, 1))(w, b, X, y)
    dX = da.from_array(X, chunks=(90, 5))
    dy = da.from_array(y, chunks=130)  # other chunks: rechunked to X's
    got = cd.value_and_grad(logistic, argnums=(0, 1), data=(2, 3))(w, b, dX, dy)
    _close(got, ref, (0, 1))


def test_mlp_loss_on_cluster(client):
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(333, 4)), rng.normal(size=333)
    W1, b1, W2, b2 = rng.normal(size=(4, 8)), rng.normal(size=8), rng.normal(size=8), 0.1
    nums = (0, 1, 2, 3)
    ref = catad.value_and_grad(mlp, argnums=nums)(W1, b1, W2, b2, X, y)
    got = cd.value_and_grad(mlp, argnums=nums, data=(4, 5), chunks=100)(W1, b1, W2, b2, X, y)
    _close(got, ref, nums)


def test_grad_only_and_single_argnum(client):
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(50, 3)), rng.random(50)
    w = rng.normal(size=3)
    ref = catad.grad(logistic)(w, 0.1, X, y)
    np.testing.assert_allclose(cd.grad(logistic, data=(2, 3), chunks=7)(w, 0.1, X, y), ref, rtol=1e-10, atol=1e-13)


def test_worker_killed_during_computation(client):
    """A worker process dies while the chunks run: Dask reschedules its tasks (the nanny starts
    another worker) and the result is still right."""
    args = gmm_args(np.random.default_rng(5), 20000, d=4, k=6)
    nums = (0, 1, 2, 3)
    ref = catad.value_and_grad(gmm_numpy.gmm_objective, argnums=nums)(*args)
    before = set(client.scheduler_info()["workers"])
    pids = client.run(os.getpid)
    result = {}

    def run():
        result["got"] = cd.value_and_grad(gmm_numpy.gmm_objective, argnums=nums, data=(4,), chunks=500)(*args)

    t = threading.Thread(target=run)
    t.start()
    deadline = time.time() + 60
    busy = []
    while time.time() < deadline and not busy:
        busy = [w for w, tasks in client.processing().items() if tasks]
        time.sleep(0.01)
    assert busy, "no task started"
    os.kill(pids[busy[0]], signal.SIGKILL)  # as the machine's OOM killer would
    t.join(120)
    assert not t.is_alive()
    _close(result["got"], ref, nums)
    client.wait_for_workers(2, timeout=60)
    assert busy[0] in before and busy[0] not in set(client.scheduler_info()["workers"])


def log_partition(w, X):
    """logsumexp over the rows (its maximum stabilises), a maximum over them, and the mean."""
    z = X @ w
    return 2.0 * logsumexp(z) + logsumexp(-z) + np.max(z) ** 2 - np.mean(z)


def shifted_by_max(w, X):
    """The maximum is not only a stabiliser here: the value depends on it."""
    z = X @ w
    m = np.max(z)
    return np.log(np.sum(np.exp(z - m))) * 3.0 + m ** 2


def test_maxima_over_rows_on_cluster(client):
    rng = np.random.default_rng(11)
    X, w = rng.normal(size=(300, 4)), rng.normal(size=4)
    ref = catad.value_and_grad(log_partition)(w, X)
    _close(cd.value_and_grad(log_partition, chunks=(70, 0, 1, 229))(w, X), ref, 0)


@pytest.mark.parametrize("chunks", [1, 7, (10, 0, 27), 37])
def test_maxima_over_rows_in_any_chunks(chunks):
    rng = np.random.default_rng(12)
    X, w = rng.normal(size=(37, 3)), rng.normal(size=3)
    for f in (log_partition, shifted_by_max):
        ref = catad.value_and_grad(f)(w, X)
        with dask.config.set(scheduler="threads"):
            _close(cd.value_and_grad(f, chunks=chunks)(w, X), ref, 0)


def test_the_reduction_of_scaled_sums_is_the_whole_sum():
    """reduce_results: sums add, maxima take the first largest, a scaled sum is rescaled."""
    roles = ("sum", "max", ("scaled", 3), "ref")
    a = ((1.0, 2.0, np.exp(-1.0) + 1.0, 5.0), (0, 0, 0, 0))  # exp(4 - 5) + exp(5 - 5)
    b = ((2.0, 2.0, 1.0, 7.0), (1, 1, 1, 1))  # exp(7 - 7)
    vals, idx = cd.api.reduce_results(roles, a, b)
    assert vals[0] == 3.0 and vals[1] == 2.0 and idx[1] == 0 and vals[3] == 7.0 and idx[3] == 1
    assert vals[2] == pytest.approx(np.exp(4.0 - 7.0) + np.exp(5.0 - 7.0) + 1.0, rel=1e-15)


# ---------------------------------------------------------------- chunks (local threads: no client needed)

@pytest.mark.parametrize("chunks", [1, 7, 13, (0, 20, 0, 30), 50])
def test_chunkings_that_do_not_divide(chunks):
    rng = np.random.default_rng(6)
    X, y = rng.normal(size=(50, 3)), rng.random(50)
    w = rng.normal(size=3)
    ref = catad.value_and_grad(logistic, argnums=(0, 1))(w, -0.2, X, y)
    with dask.config.set(scheduler="threads"):
        got = cd.value_and_grad(logistic, argnums=(0, 1), data=(2, 3), chunks=chunks)(w, -0.2, X, y)
    _close(got, ref, (0, 1))


def test_numpy_input_is_chunked_for_you():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 2))
    w = rng.normal(size=2)
    ref = catad.value_and_grad(loop_objective)(w, X)
    with dask.config.set(scheduler="threads"):
        got = cd.value_and_grad(loop_objective)(w, X)
    _close(got, ref, 0)


def loop_objective(w, X):
    s = 0.0
    for i in range(len(X)):
        s = s + np.sum((X[i] - w) ** 2) / len(X)
    return s + np.log(len(X))


SCALE = np.array([1.0, 2.0, 3.0])


def with_global(w, X):
    return np.sum((X * SCALE) @ w) ** 2 / X.shape[0]


def with_dict(p, X, y):
    z = X @ p["w"] + p["b"]
    return np.mean((z - y) ** 2) + p["b"] ** 2


def test_parameters_in_a_dict_and_a_global_read_at_each_call():
    global SCALE
    rng = np.random.default_rng(13)
    X, y, w = rng.normal(size=(20, 3)), rng.normal(size=20), rng.normal(size=3)
    p = {"w": w, "b": 0.5}
    with dask.config.set(scheduler="threads"):
        value, g = cd.value_and_grad(with_dict, data=(1, 2), chunks=6)(p, X, y)
        ref_value, ref = catad.value_and_grad(with_dict)(p, X, y)
        assert value == pytest.approx(ref_value, rel=1e-13) and set(g) == {"w", "b"}
        np.testing.assert_allclose(g["w"], ref["w"], rtol=1e-12)
        assert g["b"] == pytest.approx(ref["b"], rel=1e-12)
        old = SCALE
        try:
            for scale in (SCALE, np.array([2.0, -1.0, 0.5])):
                SCALE = scale
                _close(cd.value_and_grad(with_global, chunks=6)(w, X), catad.value_and_grad(with_global)(w, X), 0)
        finally:
            SCALE = old


# ---------------------------------------------------------------- refusals

def neighbours(w, X):
    s = 0.0
    for i in range(len(X) - 1):
        s = s + np.sum(X[i + 1] * w) * np.sum(X[i] * w)
    return s


def centred(w, X):
    m = np.mean(X, axis=0)
    return np.sum(((X - m) ** 2) @ w)


def product_of_rows(w, X):
    return np.prod(X @ w)


def running(w, X):
    return np.sum(np.cumsum(X @ w))


def scaled_by_max(w, X):
    z = X @ w
    return np.sum(z / np.max(z))


def _line(fn, text):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(k for k, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("fn, text, words", [
    (neighbours, "X[i + 1]", "not the row being summed"),
    (centred, "(X - m)", "a total over the rows"),
    (product_of_rows, "np.prod", "mixes the rows"),
    (scaled_by_max, "np.max(z)", "other than as exp(x - m)"),
    (running, "np.cumsum", "mixes the rows"),
])
def test_objectives_that_mix_rows_are_refused_at_the_statement(fn, text, words):
    rng = np.random.default_rng(8)
    X, w = rng.normal(size=(6, 2)), rng.normal(size=2)
    with pytest.raises(catad.CatadError) as e:
        cd.explain(fn, w, X)
    assert e.value.loc is not None and e.value.loc.line == _line(fn, text)
    assert e.value.loc.file == __file__
    assert words in str(e.value)


def test_explain_shows_both_programs():
    args = gmm_args(np.random.default_rng(9), 10)
    text = str(cd.explain(gmm_numpy.gmm_objective, *args, data=(4,)))
    assert "fun gmm_objective_chunk(" in text and "fun gmm_objective_combine(" in text
    assert "n_rows" in text


def test_data_arguments_must_share_their_rows():
    with pytest.raises(catad.ArgumentError, match="different numbers of rows"):
        cd.value_and_grad(logistic, data=(2, 3))(np.zeros(2), 0.0, np.zeros((5, 2)), np.zeros(4))


def test_gradient_with_respect_to_data_is_refused():
    with pytest.raises(catad.ArgumentError, match="data argument"):
        cd.value_and_grad(logistic, argnums=2, data=(2, 3))(np.zeros(2), 0.0, np.zeros((5, 2)), np.zeros(5))


def test_catad_explain_shows_the_split():
    rng = np.random.default_rng(10)
    d = catad.explain(logistic, rng.normal(size=3), 0.5, rng.normal(size=(5, 3)), rng.random(5), data=(2, 3))
    chunk, combine = d.stage("per-chunk"), d.stage("combine")
    assert chunk.text.startswith("fun logistic_chunk(") and "sum(" in chunk.text
    assert combine.text.startswith("fun logistic_combine(") and "get$1$1(s)" in combine.text
    assert "Per-chunk program" in str(d)


def test_a_shape_error_is_the_one_process_error():
    """The per-chunk program's checks compare the whole data's shapes (n, not the chunk's)."""
    X, y = np.zeros((10, 3)), np.zeros(10)
    with pytest.raises(catad.ShapeError) as one:
        catad.value_and_grad(logistic)(np.zeros(4), 0.0, X, y)
    with dask.config.set(scheduler="threads"), pytest.raises(catad.ShapeError) as split:
        cd.value_and_grad(logistic, data=(2, 3), chunks=4)(np.zeros(4), 0.0, X, y)
    assert str(split.value) == str(one.value) and "(10, 3)" in str(split.value)
