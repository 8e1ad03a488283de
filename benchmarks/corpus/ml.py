"""Machine-learning losses and layers, written as NumPy deep-learning code is: parameters in
dicts and lists, reshape/transpose, einsum, keepdims, integer labels and index arrays."""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy import special
from scipy.special import logsumexp

from ._registry import case


def softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(z, axis=-1):
    return z - logsumexp(z, axis=axis, keepdims=True)


# A two-layer perceptron with tanh hidden units and squared error; Goodfellow, Bengio &
# Courville, "Deep Learning" (2016), section 6.1 and eq. 6.3; parameters in a dict, as in
# CS231n's two_layer_net (cs231n.github.io).
def mlp_dict(params, X, y):
    h = np.tanh(X @ params["W1"] + params["b1"])
    out = h @ params["W2"] + params["b2"]
    return np.mean((out[:, 0] - y) ** 2)


# An MLP over a list of (W, b) layers, ReLU hidden units, softmax cross-entropy on integer labels;
# Goodfellow et al. (2016) sections 6.2.2.3 and 6.3.1.
def mlp_layers_ce(layers, X, labels):
    h = X
    for W, b in layers[:-1]:
        h = np.maximum(h @ W + b, 0.0)
    W, b = layers[-1]
    logits = h @ W + b
    return -np.mean(log_softmax(logits)[np.arange(X.shape[0]), labels])


# An MLP whose weights are one flat vector, unpacked with reshape, as code written for
# scipy.optimize.minimize does; Bishop (2006) section 5.1, eq. 5.10 (sigmoid hidden units).
def mlp_flat(theta, X, y, hidden=4):
    d = X.shape[1]
    W1 = theta[:d * hidden].reshape(d, hidden)
    b1 = theta[d * hidden:d * hidden + hidden]
    w2 = theta[d * hidden + hidden:d * hidden + 2 * hidden]
    b2 = theta[-1]
    h = special.expit(X @ W1 + b1)
    return 0.5 * np.sum((h @ w2 + b2 - y) ** 2)


# Softmax cross-entropy on one-hot targets with the max subtracted; Goodfellow et al. (2016)
# section 6.2.2.3 and 4.1 (softmax stability).
def softmax_cross_entropy(logits, onehot):
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -(onehot * log_probs).sum() / logits.shape[0]


# Scaled dot-product attention; Vaswani et al., "Attention is all you need", NeurIPS 2017, eq. 1:
# softmax(Q K^T / sqrt(d_k)) V; the loss a fixed projection of the output.
def attention(Q, K, V, P):
    d_k = Q.shape[-1]
    scores = np.einsum("id,jd->ij", Q, K) / np.sqrt(d_k)
    out = np.einsum("ij,jd->id", softmax(scores, axis=-1), V)
    return np.sum(out * P)


# Multi-head self-attention; Vaswani et al. (2017) section 3.2.2: heads by reshape and
# transpose, the per-head products by einsum and matmul on rank-3 arrays.
def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads=2):
    T, d_model = X.shape
    d_k = d_model // n_heads
    q = (X @ Wq).reshape(T, n_heads, d_k).transpose(1, 0, 2)
    k = (X @ Wk).reshape(T, n_heads, d_k).transpose(1, 0, 2)
    v = (X @ Wv).reshape(T, n_heads, d_k).transpose(1, 0, 2)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(d_k)
    heads = softmax(scores) @ v
    concat = heads.transpose(1, 0, 2).reshape(T, d_model)
    return np.sum((concat @ Wo) ** 2)


# Causal (masked) self-attention, as in a decoder; Vaswani et al. (2017) section 3.2.3: the
# future masked with -inf before the softmax (np.triu).
def causal_attention(X, Wq, Wk, Wv):
    T = X.shape[0]
    q, k, v = X @ Wq, X @ Wk, X @ Wv
    scores = q @ k.T / np.sqrt(q.shape[1])
    mask = np.triu(np.ones((T, T), dtype=bool), k=1)
    scores = np.where(mask, -np.inf, scores)
    return np.sum(softmax(scores) @ v)


# Layer normalisation; Ba, Kiros & Hinton, "Layer normalization", arXiv:1607.06450, 2016, eq. 4.
def layer_norm_loss(X, gamma, beta, eps=1e-5):
    mu = X.mean(axis=-1, keepdims=True)
    var = X.var(axis=-1, keepdims=True)
    y = gamma * (X - mu) / np.sqrt(var + eps) + beta
    return np.sum(y ** 3)


# Batch normalisation (training mode); Ioffe & Szegedy, "Batch normalization", ICML 2015,
# Algorithm 1.
def batch_norm_loss(X, gamma, beta, eps=1e-5):
    mu = np.mean(X, axis=0)
    var = np.mean((X - mu) ** 2, axis=0)
    xhat = (X - mu) / np.sqrt(var + eps)
    y = gamma * xhat + beta
    return np.sum(np.sin(y))


# 1-D convolution (cross-correlation) as deep-learning libraries define it; Goodfellow et al.
# (2016) eq. 9.4, the windows by sliding_window_view and the sum by einsum.
def conv1d_einsum(x, w, target):
    windows = sliding_window_view(x, w.shape[-1])
    y = np.einsum("tk,k->t", windows, w)
    return np.sum((y - target) ** 2)


# 2-D convolution (cross-correlation), valid padding, by loops; Goodfellow et al. (2016) eq. 9.6:
# S(i, j) = sum_m sum_n I(i + m, j + n) K(m, n).
def conv2d_loops(image, kernel):
    H, W = image.shape
    kh, kw = kernel.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for i in range(H - kh + 1):
        for j in range(W - kw + 1):
            out[i, j] = np.sum(image[i:i + kh, j:j + kw] * kernel)
    return np.sum(np.tanh(out))


# Multi-channel 2-D convolution layer (C_in -> C_out) by im2col as an einsum; Dumoulin & Visin,
# "A guide to convolution arithmetic for deep learning", arXiv:1603.07285, 2016 (valid,
# stride 1); channels-first arrays of rank 3 and 4.
def conv2d_multichannel(x, w, b):
    patches = sliding_window_view(x, w.shape[2:], axis=(1, 2))   # (C, H', W', kh, kw)
    y = np.einsum("chwij,ocij->ohw", patches, w) + b[:, None, None]
    return np.mean(np.maximum(y, 0.0) ** 2)


# 2x2 max pooling by reshape; Goodfellow et al. (2016) section 9.3; then a squared loss.
def max_pool_loss(x):
    H, W = x.shape
    pooled = x.reshape(H // 2, 2, W // 2, 2).max(axis=(1, 3))
    return np.sum(pooled ** 2)


# Elman recurrent network; Elman, "Finding structure in time", Cognitive Science 14(2), 1990:
# h_t = tanh(W_x x_t + W_h h_{t-1} + b); the loss the squared last state.
def elman_rnn(Wx, Wh, b, xs):
    h = np.zeros(Wh.shape[0])
    for x in xs:
        h = np.tanh(Wx @ x + Wh @ h + b)
    return np.dot(h, h)


# Gated recurrent unit; Cho et al., "Learning phrase representations using RNN encoder-decoder",
# EMNLP 2014, eqs. 5-8 (z, r gates; h~; h = z h + (1 - z) h~); parameters in a dict.
def gru_sequence(p, xs):
    h = np.zeros(p["Uz"].shape[0])
    for x in xs:
        z = special.expit(p["Wz"] @ x + p["Uz"] @ h)
        r = special.expit(p["Wr"] @ x + p["Ur"] @ h)
        h_tilde = np.tanh(p["W"] @ x + p["U"] @ (r * h))
        h = z * h + (1 - z) * h_tilde
    return np.sum(h)


# GELU feed-forward block; Hendrycks & Gimpel, "Gaussian error linear units", arXiv:1606.08415,
# 2016: GELU(x) = x Phi(x) = x (1 + erf(x / sqrt 2)) / 2.
def gelu_mlp(X, W1, W2):
    h = X @ W1
    h = 0.5 * h * (1.0 + special.erf(h / np.sqrt(2.0)))
    return np.sum((h @ W2) ** 2)


# SiLU / swish network; Ramachandran, Zoph & Le, "Searching for activation functions",
# arXiv:1710.05941, 2017: swish(x) = x sigmoid(x); Elfwing et al. (2018) "SiLU".
def swish_net(w, X):
    z = X @ w
    return np.sum(z * special.expit(z))


# Skip-gram with negative sampling; Mikolov et al., "Distributed representations of words and
# phrases and their compositionality", NeurIPS 2013, eq. 4: log s(v'_o . v_c) + sum_k log s(-v'_k . v_c).
def skipgram_negative_sampling(W_in, W_out, centers, contexts, negatives):
    vc = W_in[centers]                       # (B, d)
    vo = W_out[contexts]                     # (B, d)
    vn = W_out[negatives]                    # (B, k, d)
    pos = special.log_expit(np.sum(vc * vo, axis=1))
    neg = special.log_expit(-np.einsum("bkd,bd->bk", vn, vc)).sum(axis=1)
    return -np.mean(pos + neg)


# Matrix factorisation for recommendation; Koren, Bell & Volinsky, "Matrix factorization
# techniques for recommender systems", IEEE Computer 42(8), 2009, eq. 2 (with biases, eq. 4 and 5).
def matrix_factorisation(U, V, bu, bi, rows, cols, ratings, mu=3.5, lam=0.05):
    pred = mu + bu[rows] + bi[cols] + np.sum(U[rows] * V[cols], axis=1)
    err = ratings - pred
    reg = lam * (np.sum(U ** 2) + np.sum(V ** 2) + np.sum(bu ** 2) + np.sum(bi ** 2))
    return np.sum(err ** 2) + reg


# Factorisation machine of degree 2; Rendle, "Factorization machines", ICDM 2010, eq. 1 with the
# O(kn) form of Lemma 3.1: 1/2 sum_f ((sum_i v_if x_i)^2 - sum_i v_if^2 x_i^2).
def factorization_machine(w0, w, V, X, y):
    linear = w0 + X @ w
    inter = 0.5 * np.sum((X @ V) ** 2 - (X ** 2) @ (V ** 2), axis=1)
    return np.mean((linear + inter - y) ** 2)


# Linear soft-margin SVM, primal; Cortes & Vapnik, "Support-vector networks", Machine Learning
# 20, 1995; hinge form as in Hastie, Tibshirani & Friedman, ESL (2009) eq. 12.25.
def svm_hinge(w, b, X, y, C=1.0):
    margins = y * (X @ w + b)
    return 0.5 * np.dot(w, w) + C * np.sum(np.maximum(0.0, 1.0 - margins))


# Variational autoencoder ELBO, Gaussian encoder and Bernoulli decoder, one sample with fixed
# noise (reparameterisation); Kingma & Welling, "Auto-Encoding Variational Bayes", ICLR 2014,
# eq. 10 and appendix C.
def vae_neg_elbo(enc, dec, x, eps):
    h = np.tanh(enc["W"] @ x + enc["b"])
    mu, logvar = enc["Wmu"] @ h, enc["Wlv"] @ h
    z = mu + np.exp(0.5 * logvar) * eps
    logits = dec["W2"] @ np.tanh(dec["W1"] @ z)
    rec = np.sum(x * special.log_expit(logits) + (1 - x) * special.log_expit(-logits))
    kl = -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar))
    return -(rec - kl)


# Planar normalising flow, log-density of the output; Rezende & Mohamed, "Variational inference
# with normalizing flows", ICML 2015, eqs. 10-12: f(z) = z + u h(w.z + b), log|1 + u.psi(z)|.
def planar_flow_nll(u, w, b, Z):
    a = Z @ w + b
    fz = Z + np.outer(np.tanh(a), u)
    psi = np.outer(1.0 - np.tanh(a) ** 2, w)
    logdet = np.log(np.abs(1.0 + psi @ u))
    log_base = -0.5 * np.sum(fz ** 2, axis=1) - 0.5 * Z.shape[1] * np.log(2 * np.pi)
    return -np.sum(log_base + logdet)


# Neural ODE solved by forward Euler; Chen et al., "Neural ordinary differential equations",
# NeurIPS 2018, eq. 1 (dh/dt = f(h, theta)), with a fixed-step Euler solver.
def neural_ode_euler(W, b, y0, target, t1=1.0, steps=10):
    dt = t1 / steps
    y = y0
    for _ in range(steps):
        y = y + dt * np.tanh(W @ y + b)
    return np.sum((y - target) ** 2)


# A pre-LN transformer block: LayerNorm, single-head attention, residual, LayerNorm, ReLU MLP,
# residual; Vaswani et al. (2017) section 3.1 and Xiong et al., "On layer normalization in the
# transformer architecture", ICML 2020, fig. 1(b).
def transformer_block(X, p):
    def ln(h):
        m = h.mean(-1, keepdims=True)
        s = h.std(-1, keepdims=True)
        return (h - m) / (s + 1e-6)

    h = ln(X)
    a = softmax(h @ p["Wq"] @ (h @ p["Wk"]).T / np.sqrt(X.shape[1])) @ (h @ p["Wv"])
    X = X + a
    X = X + np.maximum(ln(X) @ p["W1"], 0) @ p["W2"]
    return np.sum(X ** 2) / X.size


# Mean-pooled embedding bag followed by a logistic output; Joulin et al., "Bag of tricks for
# efficient text classification" (fastText), EACL 2017, section 2.
def fasttext_loss(E, w, docs, y):
    doc_vecs = E[docs].mean(axis=1)        # docs: (B, L) token ids
    z = doc_vecs @ w
    return np.sum(np.logaddexp(0.0, -y * z))


# Triplet loss; Schroff, Kalenichenko & Philbin, "FaceNet", CVPR 2015, eq. 1 (with the margin alpha).
def triplet_loss(anchor, positive, negative, margin=0.2):
    d_pos = np.sum((anchor - positive) ** 2, axis=1)
    d_neg = np.sum((anchor - negative) ** 2, axis=1)
    return np.sum(np.maximum(d_pos - d_neg + margin, 0.0))


# Focal loss; Lin et al., "Focal loss for dense object detection", ICCV 2017, eq. 5 (alpha-balanced).
def focal_loss(logits, y, gamma=2.0, alpha=0.25):
    p = special.expit(logits)
    p_t = np.where(y == 1, p, 1 - p)
    alpha_t = np.where(y == 1, alpha, 1 - alpha)
    return -np.sum(alpha_t * (1 - p_t) ** gamma * np.log(p_t))


# Label-smoothed cross-entropy; Szegedy et al., "Rethinking the Inception architecture",
# CVPR 2016, section 7: q' = (1 - eps) q + eps / K.
def label_smoothing_ce(logits, labels, eps=0.1):
    n, k = logits.shape
    target = np.full((n, k), eps / k)
    target[np.arange(n), labels] += 1.0 - eps
    return -np.sum(target * log_softmax(logits)) / n


# Knowledge distillation; Hinton, Vinyals & Dean, "Distilling the knowledge in a neural network",
# arXiv:1503.02531, 2015, section 2: T^2 KL(softmax(t/T) || softmax(s/T)).
def distillation_loss(student_logits, teacher_logits, T=2.0):
    p = softmax(teacher_logits / T)
    log_q = log_softmax(student_logits / T)
    return T ** 2 * np.sum(p * (np.log(p) - log_q)) / student_logits.shape[0]


# Symmetric InfoNCE (CLIP); Radford et al., "Learning transferable visual models from natural
# language supervision", ICML 2021, figure 3 (its NumPy-like pseudocode).
def clip_loss(img_emb, txt_emb, log_temp):
    I = img_emb / np.linalg.norm(img_emb, axis=1, keepdims=True)
    T = txt_emb / np.linalg.norm(txt_emb, axis=1, keepdims=True)
    logits = I @ T.T * np.exp(log_temp)
    n = logits.shape[0]
    labels = np.arange(n)
    loss_i = -log_softmax(logits, axis=1)[labels, labels].mean()
    loss_t = -log_softmax(logits, axis=0)[labels, labels].mean()
    return (loss_i + loss_t) / 2


def _mlp_dict_args(rng):
    params = {"W1": rng.normal(size=(3, 5)) * 0.5, "b1": rng.normal(size=5) * 0.1,
              "W2": rng.normal(size=(5, 1)) * 0.5, "b2": np.zeros(1)}
    return (params, rng.normal(size=(8, 3)), rng.normal(size=8))


def _mlp_layers_args(rng):
    sizes = [3, 5, 4, 3]
    layers = [(rng.normal(size=(a, b)) * 0.5, rng.normal(size=b) * 0.1 + 0.05) for a, b in zip(sizes[:-1], sizes[1:])]
    return (layers, rng.normal(size=(6, 3)), rng.integers(0, 3, size=6))


def _mha_args(rng):
    d = 4
    return (rng.normal(size=(5, d)),) + tuple(rng.normal(size=(d, d)) * 0.5 for _ in range(4))


def _gru_args(rng):
    d, h = 3, 4
    p = {k: rng.normal(size=(h, d if k.startswith("W") else h)) * 0.5 for k in ("Wz", "Uz", "Wr", "Ur", "W", "U")}
    return (p, rng.normal(size=(5, d)))


def _vae_args(rng):
    d, hdim, z = 6, 4, 2
    enc = {"W": rng.normal(size=(hdim, d)) * 0.5, "b": np.zeros(hdim),
           "Wmu": rng.normal(size=(z, hdim)) * 0.5, "Wlv": rng.normal(size=(z, hdim)) * 0.3}
    dec = {"W1": rng.normal(size=(hdim, z)) * 0.5, "W2": rng.normal(size=(d, hdim)) * 0.5}
    return (enc, dec, (rng.uniform(size=d) < 0.5).astype(float), rng.normal(size=z))


def _transformer_args(rng):
    d, f = 4, 6
    p = {"Wq": rng.normal(size=(d, d)) * 0.4, "Wk": rng.normal(size=(d, d)) * 0.4,
         "Wv": rng.normal(size=(d, d)) * 0.4, "W1": rng.normal(size=(d, f)) * 0.4,
         "W2": rng.normal(size=(f, d)) * 0.4}
    return (rng.normal(size=(5, d)), p)


def _svm_args(rng):
    X = rng.normal(size=(10, 3))
    w = rng.normal(size=3)
    y = np.sign(X @ w + rng.normal(size=10) * 0.5)
    y[y == 0] = 1.0
    # keep every margin away from the hinge's kink at 1
    m = y * (X @ w)
    X = X * np.where(np.abs(m - 1) < 0.1, 1.3, 1.0)[:, None]
    return (w, 0.05, X, y)


def _triplet_args(rng):
    a = rng.normal(size=(6, 3))
    return (a, a + rng.normal(size=(6, 3)) * 0.3, a + rng.normal(size=(6, 3)) * np.array([[0.2], [1.5], [0.2], [1.5], [0.25], [2.0]]))


CASES = [
    case(mlp_dict, _mlp_dict_args),
    case(mlp_layers_ce, _mlp_layers_args),
    case(mlp_flat, lambda rng: (rng.normal(size=3 * 4 + 4 + 4 + 1) * 0.5, rng.normal(size=(8, 3)), rng.normal(size=8))),
    case(softmax_cross_entropy, lambda rng: (rng.normal(size=(5, 4)), np.eye(4)[rng.integers(0, 4, size=5)])),
    case(attention, lambda rng: tuple(rng.normal(size=(4, 3)) for _ in range(4)), argnums=(0, 1, 2)),
    case(multi_head_attention, _mha_args, argnums=(0, 1, 2, 3, 4)),
    case(causal_attention, lambda rng: (rng.normal(size=(4, 3)),) + tuple(rng.normal(size=(3, 3)) * 0.5 for _ in range(3)),
         argnums=(0, 1, 2, 3)),
    case(layer_norm_loss, lambda rng: (rng.normal(size=(4, 5)), 1.0 + 0.1 * rng.normal(size=5), 0.1 * rng.normal(size=5)),
         argnums=(0, 1, 2)),
    case(batch_norm_loss, lambda rng: (rng.normal(size=(6, 3)), 1.0 + 0.1 * rng.normal(size=3), 0.1 * rng.normal(size=3)),
         argnums=(0, 1, 2)),
    case(conv1d_einsum, lambda rng: (rng.normal(size=12), rng.normal(size=3), rng.normal(size=10)), argnums=(0, 1)),
    case(conv2d_loops, lambda rng: (rng.normal(size=(6, 6)), rng.normal(size=(3, 3)) * 0.5), argnums=(0, 1)),
    case(conv2d_multichannel, lambda rng: (rng.normal(size=(2, 5, 5)), rng.normal(size=(3, 2, 3, 3)) * 0.5,
                                           rng.normal(size=3) * 0.1), argnums=(0, 1, 2)),
    case(max_pool_loss, lambda rng: (rng.permutation(36).reshape(6, 6) * 0.1 + rng.uniform(0, 0.01, size=(6, 6)),)),
    case(elman_rnn, lambda rng: (rng.normal(size=(4, 3)) * 0.5, rng.normal(size=(4, 4)) * 0.5, rng.normal(size=4) * 0.1,
                                 rng.normal(size=(6, 3))), argnums=(0, 1, 2)),
    case(gru_sequence, _gru_args),
    case(gelu_mlp, lambda rng: (rng.normal(size=(5, 3)), rng.normal(size=(3, 6)) * 0.5, rng.normal(size=(6, 2)) * 0.5),
         argnums=(1, 2)),
    case(swish_net, lambda rng: (rng.normal(size=4), rng.normal(size=(10, 4)))),
    case(skipgram_negative_sampling, lambda rng: (rng.normal(size=(8, 3)) * 0.5, rng.normal(size=(8, 3)) * 0.5,
                                                  rng.integers(0, 8, size=5), rng.integers(0, 8, size=5),
                                                  rng.integers(0, 8, size=(5, 2))), argnums=(0, 1)),
    case(matrix_factorisation, lambda rng: (rng.normal(size=(4, 2)) * 0.5, rng.normal(size=(5, 2)) * 0.5,
                                            rng.normal(size=4) * 0.1, rng.normal(size=5) * 0.1,
                                            rng.integers(0, 4, size=10), rng.integers(0, 5, size=10),
                                            rng.integers(1, 6, size=10).astype(float)), argnums=(0, 1, 2, 3)),
    case(factorization_machine, lambda rng: (0.1, rng.normal(size=5) * 0.3, rng.normal(size=(5, 2)) * 0.3,
                                             rng.normal(size=(8, 5)), rng.normal(size=8)), argnums=(0, 1, 2)),
    case(svm_hinge, _svm_args, argnums=(0, 1)),
    case(vae_neg_elbo, _vae_args, argnums=(0, 1)),
    case(planar_flow_nll, lambda rng: (rng.normal(size=2) * 0.3, rng.normal(size=2) * 0.5, 0.1, rng.normal(size=(8, 2))),
         argnums=(0, 1, 2)),
    case(neural_ode_euler, lambda rng: (rng.normal(size=(3, 3)) * 0.5, rng.normal(size=3) * 0.1, rng.normal(size=3),
                                        rng.normal(size=3)), argnums=(0, 1, 2)),
    case(transformer_block, _transformer_args, argnums=(0, 1)),
    case(fasttext_loss, lambda rng: (rng.normal(size=(10, 3)) * 0.5, rng.normal(size=3), rng.integers(0, 10, size=(4, 5)),
                                     rng.choice([-1.0, 1.0], size=4)), argnums=(0, 1)),
    case(triplet_loss, _triplet_args, argnums=(0, 1, 2)),
    case(focal_loss, lambda rng: (rng.normal(size=10), rng.integers(0, 2, size=10))),
    case(label_smoothing_ce, lambda rng: (rng.normal(size=(5, 4)), rng.integers(0, 4, size=5))),
    case(distillation_loss, lambda rng: (rng.normal(size=(4, 5)), rng.normal(size=(4, 5)))),
    case(clip_loss, lambda rng: (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), 1.0), argnums=(0, 1, 2)),
]
