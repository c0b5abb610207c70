"""cut-cross-entropy (Apple's Cut Cross-Entropy): the loss of a linear layer
followed by cross-entropy, never materializing the logits, through its public
`linear_cross_entropy`, forward and backward, against torch's cross-entropy of
the materialized logits."""
import torch
import torch.nn.functional as F

from harness import case, fwd_bwd, randn

P = "cut-cross-entropy"
N, D, VOCAB = 40, 64, 1000


def reference(e, c, targets, softcap=None, reduction="mean", shift=False):
    logits = e.float() @ c.float().t()  # fp32 from the same bf16 values
    if softcap is not None:
        logits = softcap * torch.tanh(logits / softcap)
    if shift:
        logits, targets = logits[..., :-1, :], targets[..., 1:]
    return F.cross_entropy(logits.flatten(0, -2), targets.flatten(), reduction=reduction).to(e.dtype)


def lce(targets, **options):
    from cut_cross_entropy import linear_cross_entropy
    return lambda e, c: linear_cross_entropy(e, c, targets, impl="cce", **options)


def bf16(*shape):
    return randn(*shape, dtype=torch.bfloat16)


# Its backward takes bf16 and fp16 only (it asserts so); the reference
# computes the loss in fp32 from the same bf16 values. Its own tests compare
# at 1e-2-ish tolerances for bf16.
@case(P, "linear_cross_entropy (fp32, forward)", atol=1e-4, rtol=1e-4)
def fp32_forward():
    t = torch.randint(0, VOCAB, (N,))
    return fwd_bwd(lce(t), lambda e, c: reference(e, c, t), randn(N, D), randn(VOCAB, D), backward=False)


@case(P, "linear_cross_entropy (bf16, exact gradient)", atol=2e-2, rtol=2e-2)
def bf16_exact():
    t = torch.randint(0, VOCAB, (N,))
    return fwd_bwd(lce(t, filter_eps=None), lambda e, c: reference(e, c, t), bf16(N, D), bf16(VOCAB, D))


@case(P, "linear_cross_entropy (fp16, filtered gradient)", atol=2e-2, rtol=2e-2)
def fp16_filtered():
    t = torch.randint(0, VOCAB, (N,))
    return fwd_bwd(lce(t), lambda e, c: reference(e, c, t), randn(N, D, dtype=torch.float16) / 4,
                   randn(VOCAB, D, dtype=torch.float16) / 4)


@case(P, "linear_cross_entropy (bf16, softcap)", atol=2e-2, rtol=2e-2)
def bf16_softcap():
    t = torch.randint(0, VOCAB, (N,))
    return fwd_bwd(lce(t, softcap=20.0, filter_eps=None), lambda e, c: reference(e, c, t, softcap=20.0),
                   bf16(N, D), bf16(VOCAB, D))


# Per-row output grads of magnitude ~1 make dE larger than in the reduced
# cases, and the kernel adds dE's partial sums into the bf16 output block by
# vocabulary block: judged by the relative rms error, as fla's tests judge.
@case(P, "linear_cross_entropy (reduction none, ignore_index)", ratio=5e-3)
def unreduced_ignore():
    t = torch.randint(0, VOCAB, (N,))
    t[::7] = -100
    return fwd_bwd(lce(t, reduction="none", filter_eps=None), lambda e, c: reference(e, c, t, reduction="none"),
                   bf16(N, D), bf16(VOCAB, D))


@case(P, "linear_cross_entropy (batch x sequence, shift, sum)", atol=5e-1, rtol=2e-2)
def shifted_sum():
    t = torch.randint(0, VOCAB, (2, 20))
    return fwd_bwd(lce(t, shift=True, reduction="sum", filter_eps=None),
                   lambda e, c: reference(e, c, t, reduction="sum", shift=True), bf16(2, 20, D), bf16(VOCAB, D))
