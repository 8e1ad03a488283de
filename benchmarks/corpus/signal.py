"""Signal processing: filters, transforms, denoising energies and alignment, written as DSP code
is with np.convolve, np.fft, np.diff, cumsum and explicit recursions."""
import numpy as np

from ._registry import case


# FIR filter design by least squares against a target output; Oppenheim & Schafer, "Discrete-Time
# Signal Processing" 3rd ed. (2010), eq. 2.30 (convolution sum), by np.convolve.
def fir_least_squares(h, x, target):
    y = np.convolve(x, h, mode="valid")
    return np.sum((y - target) ** 2)


# First-order IIR (exponential smoothing) filter, y[n] = a y[n-1] + (1 - a) x[n]; Oppenheim &
# Schafer (2010) section 2.5 (difference equations); the loss its squared error to a target.
def iir_first_order(a, x, target):
    y = np.zeros_like(x)
    y[0] = (1 - a) * x[0]
    for n in range(1, len(x)):
        y[n] = a * y[n - 1] + (1 - a) * x[n]
    return np.sum((y - target) ** 2)


# Biquad (direct form I) filter; Bristow-Johnson, "Cookbook formulae for audio EQ biquad filter
# coefficients" (https://www.w3.org/TR/audio-eq-cookbook/), the difference equation with a0 = 1.
def biquad(coeffs, x):
    b0, b1, b2, a1, a2 = coeffs
    x1 = x2 = y1 = y2 = 0.0
    out = []
    for xn in x:
        yn = b0 * xn + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, xn
        y2, y1 = y1, yn
        out.append(yn)
    return float(np.sum(np.square(out)))


# Total-variation denoising, smoothed (Charbonnier) TV; Rudin, Osher & Fatemi, "Nonlinear total
# variation based noise removal algorithms", Physica D 60, 1992, eq. 1.3 (1-D).
def tv_denoise(u, f, lam=0.5, eps=1e-3):
    return 0.5 * np.sum((u - f) ** 2) + lam * np.sum(np.sqrt(np.diff(u) ** 2 + eps ** 2))


# Tikhonov / Whittaker smoother; Whittaker, "On a new method of graduation", Proc. Edinburgh Math.
# Soc. 41, 1923; Eilers, "A perfect smoother", Anal. Chem. 75, 2003, eq. 1: |y - z|^2 + lam |D2 z|^2.
def whittaker_smoother(z, y, lam=10.0):
    return np.sum((y - z) ** 2) + lam * np.sum(np.diff(z, n=2) ** 2)


# Power spectrum by the FFT, matched to a target spectrum; Oppenheim & Schafer (2010) chapter 8
# (the DFT), numpy.fft.rfft.
def spectrum_match(x, target_power):
    X = np.fft.rfft(x)
    power = np.abs(X) ** 2 / len(x)
    return np.sum((np.log(power + 1e-3) - np.log(target_power + 1e-3)) ** 2)


# The DFT written as a matrix of cosines and sines; Oppenheim & Schafer (2010) eq. 8.67:
# X[k] = sum_n x[n] exp(-2 pi i k n / N), real and imaginary parts.
def dft_magnitude_loss(x, target):
    N = len(x)
    n = np.arange(N)
    k = n.reshape(-1, 1)
    C = np.cos(2 * np.pi * k * n / N)
    S = -np.sin(2 * np.pi * k * n / N)
    re, im = C @ x, S @ x
    return np.sum((np.sqrt(re ** 2 + im ** 2 + 1e-9) - target) ** 2)


# Autocorrelation-based periodicity objective; Box, Jenkins & Reinsel, "Time Series Analysis"
# (2008) eq. 2.1.11 (sample autocorrelation), by np.correlate.
def autocorrelation_loss(x, max_lag=4):
    xc = x - x.mean()
    acf = np.correlate(xc, xc, mode="full")[len(x) - 1:]
    acf = acf / acf[0]
    return np.sum(acf[1:max_lag + 1] ** 2)


# Moving average by cumulative sums; Smith, "The Scientist and Engineer's Guide to Digital Signal
# Processing" (1997), chapter 15 (recursive moving average); fitted to a target.
def moving_average_fit(x, target, w=3):
    c = np.cumsum(np.insert(x, 0, 0.0))
    ma = (c[w:] - c[:-w]) / w
    return np.sum((ma - target) ** 2)


# Holt's linear exponential smoothing, one-step-ahead squared error; Holt (1957), reprinted
# Int. J. Forecasting 20, 2004; Hyndman & Athanasopoulos, "Forecasting: Principles and Practice"
# 3rd ed., section 8.2.
def holt_linear_sse(params, y):
    alpha, beta = 1 / (1 + np.exp(-params[0])), 1 / (1 + np.exp(-params[1]))
    level, trend = y[0], y[1] - y[0]
    sse = 0.0
    for t in range(1, len(y)):
        forecast = level + trend
        sse += (y[t] - forecast) ** 2
        new_level = alpha * y[t] + (1 - alpha) * (level + trend)
        trend = beta * (new_level - level) + (1 - beta) * trend
        level = new_level
    return sse


# Goertzel algorithm, the power at one frequency bin; Goertzel, "An algorithm for the evaluation
# of finite trigonometric series", Amer. Math. Monthly 65(1), 1958; Oppenheim & Schafer (2010) section 9.2.
def goertzel_power(x, k=2):
    N = len(x)
    w = 2 * np.pi * k / N
    coeff = 2 * np.cos(w)
    s_prev, s_prev2 = 0.0, 0.0
    for xn in x:
        s = xn + coeff * s_prev - s_prev2
        s_prev2, s_prev = s_prev, s
    return s_prev2 ** 2 + s_prev ** 2 - coeff * s_prev * s_prev2


# Soft dynamic time warping; Cuturi & Blondel, "Soft-DTW: a differentiable loss function for
# time-series", ICML 2017, Algorithm 1 (softmin_gamma by a stable log-sum-exp).
def soft_dtw(x, y, gamma=0.1):
    n, m = len(x), len(y)
    R = np.full((n + 1, m + 1), np.inf)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = (x[i - 1] - y[j - 1]) ** 2
            r = np.array([R[i - 1, j - 1], R[i - 1, j], R[i, j - 1]])
            rmin = np.min(r)
            softmin = rmin - gamma * np.log(np.sum(np.exp(-(r - rmin) / gamma)))
            R[i, j] = cost + softmin
    return R[n, m]


# Log mel filterbank energies; Davis & Mermelstein, "Comparison of parametric representations for
# monosyllabic word recognition", IEEE TASSP 28(4), 1980; mel scale m = 2595 log10(1 + f/700)
# (O'Shaughnessy 1987); triangular filters on the power spectrum of frames.
def log_mel_energy(frames, n_mels=4, sr=8000.0):
    n_fft = frames.shape[1]
    power = np.abs(np.fft.rfft(frames * np.hanning(n_fft), axis=1)) ** 2
    freqs = np.linspace(0, sr / 2, power.shape[1])
    mel = 2595.0 * np.log10(1.0 + freqs / 700.0)
    edges = np.linspace(mel[0], mel[-1], n_mels + 2)
    fb = np.maximum(0.0, np.minimum((mel[None, :] - edges[:-2, None]) / (edges[1:-1, None] - edges[:-2, None]),
                                    (edges[2:, None] - mel[None, :]) / (edges[2:, None] - edges[1:-1, None])))
    return np.sum(np.log(power @ fb.T + 1e-6))


# Wiener deconvolution objective with a known blur, in the frequency domain; Wiener, "Extrapolation,
# Interpolation, and Smoothing of Stationary Time Series" (1949); Gonzalez & Woods, "Digital Image
# Processing" 3rd ed., eq. 5.8-3 (its least-squares form with a Tikhonov term).
def deconvolution_loss(x, kernel, observed, lam=0.01):
    H = np.fft.fft(kernel, n=len(x))
    blurred = np.real(np.fft.ifft(np.fft.fft(x) * H))
    return np.sum((blurred - observed) ** 2) + lam * np.sum(x ** 2)


# Chirp matched filter: the correlation of a signal with a linear chirp of unknown rate;
# Richards, "Fundamentals of Radar Signal Processing" (2005), section 4.6 (LFM waveform
# exp(i pi beta t^2 / tau)), real part; maximised, so the loss is its negative square.
def chirp_correlation(rate, t, signal):
    ref = np.cos(np.pi * rate * t ** 2)
    return -np.dot(ref, signal) ** 2


def _iir(rng):
    x = rng.normal(size=15)
    return (0.6, x, rng.normal(size=15) * 0.5)


CASES = [
    case(fir_least_squares, lambda rng: (rng.normal(size=4), rng.normal(size=16), rng.normal(size=13)), argnums=(0, 1)),
    case(iir_first_order, _iir, argnums=(0, 1)),
    case(biquad, lambda rng: (np.array([0.2, 0.4, 0.2, -0.5, 0.2]) + rng.normal(size=5) * 0.02, rng.normal(size=12)),
         argnums=(0, 1)),
    case(tv_denoise, lambda rng: (rng.normal(size=15), np.repeat([0.0, 1.0, -0.5], 5) + 0.1 * rng.normal(size=15))),
    case(whittaker_smoother, lambda rng: (rng.normal(size=15), np.sin(np.linspace(0, 3, 15)) + 0.1 * rng.normal(size=15))),
    case(spectrum_match, lambda rng: (rng.normal(size=16), rng.uniform(0.5, 2.0, size=9))),
    case(dft_magnitude_loss, lambda rng: (rng.normal(size=12), rng.uniform(0.5, 2.0, size=12))),
    case(autocorrelation_loss, lambda rng: (rng.normal(size=16),)),
    case(moving_average_fit, lambda rng: (rng.normal(size=15), rng.normal(size=13) * 0.3)),
    case(holt_linear_sse, lambda rng: (np.array([0.2, -0.5]), np.cumsum(rng.normal(size=15) + 0.3))),
    case(goertzel_power, lambda rng: (rng.normal(size=16),)),
    case(soft_dtw, lambda rng: (rng.normal(size=6), rng.normal(size=5)), argnums=(0, 1)),
    case(log_mel_energy, lambda rng: (rng.normal(size=(3, 16)),)),
    case(deconvolution_loss, lambda rng: (rng.normal(size=12), np.array([0.5, 0.3, 0.2]), rng.normal(size=12))),
    case(chirp_correlation, lambda rng: (0.37, np.linspace(0, 2, 20), np.cos(np.pi * 0.4 * np.linspace(0, 2, 20) ** 2)
                                         + 0.1 * rng.normal(size=20))),
]
