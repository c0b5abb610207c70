"""Layer normalization, forward and backward, in Triton's style.

Forward: one program per row; the row is walked in BLOCK-wide chunks by
runtime loops (so any row length works with one compiled kernel),
accumulating the mean and the variance.

Backward: one program per row computes dx, and its row's contribution to
dw and db.  Rather than one atomic add per element, rows are spread over
GROUPS partial buffers: a program takes its group's lock (a spin on
tl.atomic_cas), adds its contribution to the group's partial row (or
writes it, if the group's `count` cell says no one has yet) and releases
the lock.  A second kernel sums the GROUPS partial rows into dw and db.

Replacing the rocktile imports with Triton's runs the kernels under Triton.
"""
import numpy as np

import rocktile
import rocktile.language as tl


@rocktile.jit
def layer_norm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n_cols, eps,
                   BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    acc = tl.zeros([BLOCK], tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK], tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        x = tl.where(cols < n_cols, x - mean, 0.0)
        acc += x * x
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + cols, (x - mean) * rstd * w + b, mask=mask)


def layer_norm(x, w, b, eps=1e-5, BLOCK=256, target=None):
    rows, cols = x.shape
    y = np.empty_like(x)
    mean, rstd = np.empty(rows, np.float32), np.empty(rows, np.float32)
    layer_norm_fwd[(rows,)](x, y, w, b, mean, rstd, x.shape[1], cols, eps, BLOCK=BLOCK, target=target)
    return y, mean, rstd


@rocktile.jit
def layer_norm_bwd_dx(dx_ptr, dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, dw_part_ptr, db_part_ptr, locks_ptr,
                      stride, n_cols, GROUPS: tl.constexpr, BLOCK: tl.constexpr):
    # The whole row is one BLOCK (BLOCK >= n_cols).
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    # y = xhat * w + b with xhat = (x - mean) * rstd; g = dL/dxhat.
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    g = dy * w
    mean_g_xhat = tl.sum(g * xhat, axis=0) / n_cols
    mean_g = tl.sum(g, axis=0) / n_cols
    dx = (g - xhat * mean_g_xhat - mean_g) * rstd
    tl.store(dx_ptr + row * stride + cols, dx, mask=mask)

    # This row's share of dw and db, added to its group's partial row.
    dw = dy * xhat
    db = dy
    group = row % GROUPS
    lock = locks_ptr + group
    count = locks_ptr + GROUPS + group  # 0 until the group's partial row holds data
    partial = group * n_cols + cols
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    if tl.load(count) == 0:
        tl.atomic_xchg(count, 1)
    else:
        dw += tl.load(dw_part_ptr + partial, mask=mask, other=0.0)
        db += tl.load(db_part_ptr + partial, mask=mask, other=0.0)
    tl.store(dw_part_ptr + partial, dw, mask=mask)
    tl.store(db_part_ptr + partial, db, mask=mask)
    tl.atomic_xchg(lock, 0)


@rocktile.jit
def layer_norm_bwd_dwdb(dw_part_ptr, db_part_ptr, dw_ptr, db_ptr, groups, n_cols,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # One program per BLOCK_N columns sums the `groups` partial rows.
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    dw = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    db = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for start in range(0, groups, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < groups) & (cols[None, :] < n_cols)
        offsets = rows[:, None] * n_cols + cols[None, :]
        dw += tl.load(dw_part_ptr + offsets, mask=mask, other=0.0)
        db += tl.load(db_part_ptr + offsets, mask=mask, other=0.0)
    tl.store(dw_ptr + cols, tl.sum(dw, axis=0), mask=cols < n_cols)
    tl.store(db_ptr + cols, tl.sum(db, axis=0), mask=cols < n_cols)


def layer_norm_backward(dy, x, w, mean, rstd, groups=None, target=None):
    """(dx, dw, db) of layer_norm's y for the upstream gradient dy."""
    rows, cols = x.shape
    groups = groups or min(rows, 32)
    dx = np.empty_like(x)
    dw_part = np.zeros((groups, cols), np.float32)
    db_part = np.zeros((groups, cols), np.float32)
    locks = np.zeros(2 * groups, np.int32)  # [lock per group, count per group]
    layer_norm_bwd_dx[(rows,)](dx, dy, x, w, mean, rstd, dw_part, db_part, locks, x.shape[1], cols,
                               GROUPS=groups, BLOCK=rocktile.next_power_of_2(cols), target=target)
    dw, db = np.empty(cols, np.float32), np.empty(cols, np.float32)
    block_n = 64
    layer_norm_bwd_dwdb[(rocktile.cdiv(cols, block_n),)](dw_part, db_part, dw, db, groups, cols,
                                                         BLOCK_M=16, BLOCK_N=block_n, target=target)
    return dx, dw, db


def layer_norm_backward_reference(dy, x, w, eps=1e-5):
    """(dx, dw, db) computed by numpy in float64."""
    x, dy, w = x.astype(np.float64), dy.astype(np.float64), w.astype(np.float64)
    xhat = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + eps)
    g = dy * w
    dx = (g - xhat * (g * xhat).mean(1, keepdims=True) - g.mean(1, keepdims=True)) / np.sqrt(
        x.var(1, keepdims=True) + eps)
    return dx, (dy * xhat).sum(0), dy.sum(0)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 1000), np.float32)
    w, b, dy = rng.standard_normal(1000, np.float32), rng.standard_normal(1000, np.float32), rng.standard_normal(
        (8, 1000), np.float32)
    for target in ("gfx950", "gfx1250"):
        y, mean, rstd = layer_norm(x, w, b, target=target)
        ref = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5) * w + b
        print(f"{target}: layer_norm forward max error: {float(np.abs(y - ref).max()):.2e}")
        grads = layer_norm_backward(dy, x, w, mean, rstd, target=target)
        errors = [float(np.abs(g - r).max()) for g, r in zip(grads, layer_norm_backward_reference(dy, x, w))]
        print(f"{target}: layer_norm backward max error: dx {errors[0]:.2e}, dw {errors[1]:.2e}, db {errors[2]:.2e}")
