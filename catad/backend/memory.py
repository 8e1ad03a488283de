"""Keep freed memory in the process, so compiled code does not page-fault on every call.

Compiled code allocates its large temporaries afresh on each call and frees them on
return. glibc's malloc hands a freed block of over 128 KiB straight back to the
operating system (it was mmap'd) and trims the heap's free top past 128 KiB, so the
next call touches every page of every temporary for the first time again: a page
fault and a kernel zero-fill per 4 KiB. On the GMM gradient (d10_K25, 1k points) that
is about 5,000 faults per call and two thirds of its time. XLA and PyTorch's GPU side
keep memory pools for the same reason; NumPy allocates with malloc, so we tune malloc.

``keep_freed_memory()`` raises glibc's mmap threshold to its maximum (32 MiB) and the
trim threshold to 256 MiB: up to that much freed memory stays mapped for reuse. It
runs once, when catad first compiles a function. Set ``CATAD_KEEP_MEMORY=0`` in the
environment to leave malloc as it is. Elsewhere than glibc it does nothing.
"""
from __future__ import annotations

import ctypes
import os
import platform
import sys

M_TRIM_THRESHOLD = -1  # glibc's <malloc.h>
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 1024 * 1024  # the largest glibc accepts on 64-bit machines
TRIM_THRESHOLD = 256 * 1024 * 1024

_status: str | None = None


def keep_freed_memory() -> str:
    """Tune malloc once (see the module docstring); return what was done."""
    global _status
    if _status is None:
        _status = _tune()
    return _status


def status() -> str:
    """What keep_freed_memory did, or "not yet" before catad has compiled anything."""
    return _status or "not yet"


def _tune() -> str:
    if os.environ.get("CATAD_KEEP_MEMORY", "1").strip().lower() in ("0", "no", "false", "off"):
        return "off (CATAD_KEEP_MEMORY=0)"
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return "unchanged (not glibc)"
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return "unchanged (no mallopt)"
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    ok = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    return "glibc keeps up to 256 MiB freed" if ok else "unchanged (mallopt refused)"
