"""liger-kernel (LinkedIn's LLM-training kernels): each kernel through its
autograd Function in liger_kernel.ops, forward and backward, against the torch
formula of the op (the one the library's docstrings state)."""
import math

import torch
import torch.nn.functional as F

from harness import NotApplicable, case, fwd_bwd, randn

P = "liger-kernel"


def rms(x, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


@case(P, "rms_norm", atol=1e-4, rtol=1e-4)
def rms_norm():
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    return fwd_bwd(lambda x, w: LigerRMSNormFunction.apply(x, w, 1e-6),
                   lambda x, w: rms(x, 1e-6) * w, randn(2, 5, 200), randn(200))


@case(P, "rms_norm (gemma, bf16)", atol=2e-2, rtol=2e-2)
def rms_norm_gemma():
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    return fwd_bwd(lambda x, w: LigerRMSNormFunction.apply(x, w, 1e-6, 1.0, "gemma", False),
                   lambda x, w: (rms(x.float(), 1e-6) * (1.0 + w.float())).to(x.dtype),
                   randn(6, 96, dtype=torch.bfloat16), randn(96, dtype=torch.bfloat16))


@case(P, "fused_add_rms_norm", atol=1e-4, rtol=1e-4)
def fused_add_rms_norm():
    from liger_kernel.ops.fused_add_rms_norm import LigerFusedAddRMSNormFunction
    return fwd_bwd(lambda x, r, w: LigerFusedAddRMSNormFunction.apply(x, r, w, 1e-6),
                   lambda x, r, w: (rms(x + r, 1e-6) * w, x + r), randn(7, 130), randn(7, 130), randn(130))


@case(P, "layer_norm", atol=1e-4, rtol=1e-4)
def layer_norm():
    from liger_kernel.ops.layer_norm import LigerLayerNormFunction
    return fwd_bwd(lambda x, w, b: LigerLayerNormFunction.apply(x, w, b, 1e-5),
                   lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b, 1e-5), randn(3, 4, 100), randn(100), randn(100))


@case(P, "group_norm", atol=1e-4, rtol=1e-4)
def group_norm():
    from liger_kernel.ops.group_norm import LigerGroupNormFunction
    return fwd_bwd(lambda x, w, b: LigerGroupNormFunction.apply(x, w, b, 8, 4, 1e-6),
                   lambda x, w, b: F.group_norm(x, 4, w, b, 1e-6), randn(3, 8, 50), randn(8), randn(8))


@case(P, "poly_norm", atol=1e-4, rtol=1e-4)
def poly_norm():
    from liger_kernel.ops.poly_norm import LigerPolyNormFunction
    return fwd_bwd(lambda x, w, b: LigerPolyNormFunction.apply(x, w, b, 1e-6, False),
                   lambda x, w, b: w[0] * rms(x ** 3, 1e-6) + w[1] * rms(x ** 2, 1e-6) + w[2] * rms(x, 1e-6) + b,
                   randn(5, 120), randn(3), randn(()))


@case(P, "dyt", atol=1e-5, rtol=1e-5)
def dyt():
    from liger_kernel.ops.dyt import LigerDyTFunction
    # Forward only: the backward sizes its partial sums by the device's SM
    # count, which it asks of torch.cuda or torch.xpu (on the CPU it fails
    # with NUM_SMS unbound).
    x, a, g, b = randn(4, 6, 100), randn(1), randn(100), randn(100)
    return [("output", LigerDyTFunction.apply(x, a, g, b), torch.tanh(a * x) * g + b)]


@case(P, "swiglu", atol=1e-5, rtol=1e-5)
def swiglu():
    from liger_kernel.ops.swiglu import LigerSiLUMulFunction
    return fwd_bwd(LigerSiLUMulFunction.apply, lambda a, b: F.silu(a) * b, randn(3, 5, 300), randn(3, 5, 300))


@case(P, "geglu", atol=1e-5, rtol=1e-5)
def geglu():
    from liger_kernel.ops.geglu import LigerGELUMulFunction
    return fwd_bwd(LigerGELUMulFunction.apply, lambda a, b: F.gelu(a, approximate="tanh") * b,
                   randn(3, 5, 300), randn(3, 5, 300))


@case(P, "relu_squared", atol=1e-5, rtol=1e-5)
def relu_squared():
    from liger_kernel.ops.relu_squared import LigerReLUSquaredFunction
    return fwd_bwd(LigerReLUSquaredFunction.apply, lambda x: F.relu(x) ** 2, randn(4, 333))


@case(P, "softmax", atol=1e-6, rtol=1e-5)
def softmax():
    from liger_kernel.ops.softmax import LigerSoftmaxFunction
    return fwd_bwd(LigerSoftmaxFunction.apply, lambda x: torch.softmax(x, -1), randn(6, 1000))


def sparsemax_reference(x, dim):
    z = x.transpose(dim, -1)
    zs, _ = torch.sort(z, dim=-1, descending=True)
    k = torch.arange(1, z.shape[-1] + 1, dtype=z.dtype)
    cumsum = zs.cumsum(-1)
    support = (1 + k * zs) > cumsum
    k_z = support.sum(-1, keepdim=True)
    tau = (cumsum.gather(-1, k_z - 1) - 1) / k_z
    return torch.clamp(z - tau, min=0).transpose(dim, -1)


@case(P, "sparsemax", atol=1e-5, rtol=1e-5)
def sparsemax():
    from liger_kernel.ops.sparsemax import LigerSparsemaxFunction
    return fwd_bwd(lambda x: LigerSparsemaxFunction.apply(x, -1), lambda x: sparsemax_reference(x, -1), randn(5, 77))


@case(P, "cross_entropy", atol=1e-5, rtol=1e-5)
def cross_entropy():
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    target = torch.randint(0, 500, (12,))
    target[3] = -100
    return fwd_bwd(lambda x: LigerCrossEntropyFunction.apply(x, target, None, -100, 0.0, 0.1),
                   lambda x: F.cross_entropy(x, target, ignore_index=-100, label_smoothing=0.1), randn(12, 500), outputs=1)


@case(P, "cross_entropy (softcap, z-loss, sum)", atol=1e-4, rtol=1e-5)
def cross_entropy_softcap():
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    target = torch.randint(0, 300, (9,))

    def reference(x):
        logits = 30.0 * torch.tanh(x / 30.0)
        lse = torch.logsumexp(logits, -1)
        return F.cross_entropy(logits, target, reduction="sum") + 1e-4 * (lse ** 2).sum(), 1e-4 * (lse ** 2).sum()
    return fwd_bwd(lambda x: LigerCrossEntropyFunction.apply(x, target, None, -100, 1e-4, 0.0, "sum", 30.0, True),
                   reference, randn(9, 300) * 20, outputs=2)


@case(P, "fused_linear_cross_entropy", atol=1e-4, rtol=1e-4)
def fused_linear_cross_entropy():
    from liger_kernel.ops.fused_linear_cross_entropy import LigerFusedLinearCrossEntropyFunction
    target = torch.randint(0, 250, (10,))
    return fwd_bwd(lambda h, w: LigerFusedLinearCrossEntropyFunction.apply(h, w, target),
                   lambda h, w: F.cross_entropy(h @ w.t(), target), randn(10, 64), randn(250, 64), outputs=1)


def jsd_reference(x, y, beta):
    """x: student log-probs, y: teacher log-probs; batchmean over rows."""
    p, q = y.exp(), x.exp()
    log_m = torch.log(beta * p + (1 - beta) * q)
    return (beta * p * (y - log_m) + (1 - beta) * q * (x - log_m)).sum() / x.shape[0]


@case(P, "jsd", atol=1e-5, rtol=1e-4)
def jsd():
    from liger_kernel.ops.jsd import LigerJSDFunction
    x, y = randn(8, 400).log_softmax(-1).detach().requires_grad_(), randn(8, 400, grad=False).log_softmax(-1)
    return fwd_bwd(lambda x, y: LigerJSDFunction.apply(x, y, None, 0.3), lambda x, y: jsd_reference(x, y, 0.3), x, y)


@case(P, "fused_linear_jsd", atol=1e-4, rtol=1e-4)
def fused_linear_jsd():
    from liger_kernel.ops.fused_linear_jsd import LigerFusedLinearJSDFunction

    def reference(hs, ws, ht, wt):
        return jsd_reference((hs @ ws.t()).log_softmax(-1), (ht @ wt.t()).log_softmax(-1), 0.5)
    return fwd_bwd(LigerFusedLinearJSDFunction.apply, reference,
                   randn(6, 32), randn(200, 32), randn(6, 48, grad=False), randn(200, 48, grad=False))


@case(P, "kl_div", atol=1e-5, rtol=1e-4)
def kl_div():
    from liger_kernel.ops.kl_div import LigerKLDivLossFunction
    x, y = randn(8, 300).log_softmax(-1).detach().requires_grad_(), randn(8, 300, grad=False).softmax(-1)
    return fwd_bwd(lambda x, y: LigerKLDivLossFunction.apply(x, y, "batchmean"),
                   lambda x, y: F.kl_div(x, y, reduction="batchmean"), x, y)


@case(P, "fused_linear_kl_div", atol=1e-4, rtol=1e-4)
def fused_linear_kl_div():
    from liger_kernel.ops.fused_linear_kl_div import LigerFusedLinearKLDivFunction
    target = randn(6, 200, grad=False).softmax(-1)
    return fwd_bwd(lambda h, w: LigerFusedLinearKLDivFunction.apply(h, w, target),
                   lambda h, w: F.kl_div((h @ w.t()).log_softmax(-1), target, reduction="batchmean"),
                   randn(6, 32), randn(200, 32))


@case(P, "tvd", atol=1e-5, rtol=1e-4)
def tvd():
    from liger_kernel.ops.tvd import LigerTVDLossFunction
    p, q = randn(8, 300).softmax(-1).detach().requires_grad_(), randn(8, 300, grad=False).softmax(-1)
    return fwd_bwd(LigerTVDLossFunction.apply, lambda p, q: 0.5 * (p - q).abs().sum() / p.shape[0], p, q)


@case(P, "fused_ce_tvd", atol=1e-4, rtol=1e-4)
def fused_ce_tvd():
    from liger_kernel.ops.fused_ce_tvd import LigerFusedCETVDFunction
    target = torch.randint(0, 200, (8,))
    s, t = randn(8, 200), randn(8, 200, grad=False)
    return fwd_bwd(lambda s, t: LigerFusedCETVDFunction.apply(s, t, target),
                   lambda s, t: (F.cross_entropy(s, target, reduction="none"),
                                 0.5 * (s.softmax(-1) - t.softmax(-1)).abs().sum(-1)), s, t)


def rotate_half(x):
    a, b = x.chunk(2, -1)
    return torch.cat((-b, a), -1)


@case(P, "rope", atol=1e-5, rtol=1e-5)
def rope():
    from liger_kernel.ops.rope import LigerRopeFunction
    bsz, heads, kv_heads, seq, dim = 2, 4, 2, 10, 32
    pos = torch.arange(seq, dtype=torch.float32)
    freqs = torch.outer(pos, 1.0 / 10000 ** (torch.arange(0, dim, 2) / dim))
    emb = torch.cat((freqs, freqs), -1)[None]
    cos, sin = emb.cos(), emb.sin()

    def reference(q, k):
        c, s = cos[:, None], sin[:, None]
        return q * c + rotate_half(q) * s, k * c + rotate_half(k) * s
    return fwd_bwd(lambda q, k: LigerRopeFunction.apply(q, k, cos, sin), reference,
                   randn(bsz, heads, seq, dim), randn(bsz, kv_heads, seq, dim))


@case(P, "qwen2vl_mrope", atol=1e-5, rtol=1e-5)
def qwen2vl_mrope():
    from liger_kernel.ops.qwen2vl_mrope import LigerQwen2VLMRopeFunction
    bsz, heads, seq, dim, section = 2, 4, 6, 32, [4, 6, 6]
    # As the models build them: the two halves of the last dimension equal.
    cos, sin = (torch.randn(3, bsz, seq, dim // 2).repeat(1, 1, 1, 2) for _ in range(2))

    def reference(q, k):
        split = section * 2
        c = torch.cat([m[i % 3] for i, m in enumerate(cos.split(split, -1))], -1)[:, None]
        s = torch.cat([m[i % 3] for i, m in enumerate(sin.split(split, -1))], -1)[:, None]
        return q * c + rotate_half(q) * s, k * c + rotate_half(k) * s
    return fwd_bwd(lambda q, k: LigerQwen2VLMRopeFunction.apply(q, k, cos, sin, section), reference,
                   randn(bsz, heads, seq, dim), randn(bsz, 2, seq, dim))


@case(P, "llama4_rope", atol=1e-5, rtol=1e-5)
def llama4_rope():
    from liger_kernel.ops.llama4_rope import LigerLlama4RopeFunction
    bsz, seq, heads, dim = 2, 6, 4, 32
    freqs = torch.polar(torch.ones(seq, dim // 2), torch.randn(seq, dim // 2))

    def reference(q, k):
        def rot(x):
            xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
            return torch.view_as_real(xc * freqs[None, :, None]).flatten(3)
        return rot(q), rot(k)
    return fwd_bwd(lambda q, k: LigerLlama4RopeFunction.apply(q, k, freqs), reference,
                   randn(bsz, seq, heads, dim), randn(bsz, seq, 2, dim))


@case(P, "multi_token_attention", atol=1e-5, rtol=1e-4)
def multi_token_attention():
    from liger_kernel.ops.multi_token_attention import LigerMultiTokenAttentionFunction
    L = 12
    causal = torch.ones(L, L, dtype=torch.bool).triu(1)

    def reference(scores, w, b):
        probs = torch.softmax(scores.masked_fill(causal, -1e9), -1)
        return F.conv2d(probs, w, b, padding=1).masked_fill(causal, 0.0)
    return fwd_bwd(lambda s, w, b: LigerMultiTokenAttentionFunction.apply(s, w, b, 1, 1), reference,
                   randn(2, 4, L, L), randn(4, 4, 3, 3), randn(4))


@case(P, "embedding", atol=1e-6, rtol=1e-6)
def embedding():
    from liger_kernel.ops.experimental.embedding import LigerEmbeddingFunction
    idx = torch.randint(0, 100, (3, 7))
    return fwd_bwd(lambda e: LigerEmbeddingFunction.apply(e, idx), lambda e: F.embedding(idx, e), randn(100, 24))


@case(P, "mlp (gemm_swiglu)", atol=2e-3, rtol=2e-3)
def mlp():
    raise NotApplicable("LigerMLPFunction asserts input.is_cuda; it also needs triton.tools.tensor_descriptor's "
                        "host-side TensorDescriptor, which rocktile does not have")


@case(P, "fused_neighborhood_attention", atol=1e-4, rtol=1e-4)
def fused_neighborhood_attention():
    from liger_kernel.ops.fused_neighborhood_attention import LigerFusedNeighborhoodAttentionFunction
    seq, ks = 20, 5
    i = torch.arange(seq)
    allowed = (i[None, :] - i[:, None]).abs() <= ks // 2  # the window is cut at the ends, not shifted

    def reference(q, k, v):
        s = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        return torch.softmax(s.masked_fill(~allowed, float("-inf")), -1) @ v
    return fwd_bwd(lambda q, k, v: LigerFusedNeighborhoodAttentionFunction.apply(q, k, v, ks), reference,
                   randn(1, 2, seq, 16), randn(1, 2, seq, 16), randn(1, 2, seq, 16))


@case(P, "cross_entropy (vocab over one block)", atol=1e-5, rtol=1e-4)
def cross_entropy_large_vocab():
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    target = torch.randint(0, 70000, (3,))  # 70,000 > the 65,536 one block of the kernel covers
    return fwd_bwd(lambda x: LigerCrossEntropyFunction.apply(x, target, None),
                   lambda x: F.cross_entropy(x, target), randn(3, 70000), outputs=1)


@case(P, "fused_moe", atol=1e-3, rtol=1e-3)
def fused_moe():
    from liger_kernel.ops.fused_moe import LigerFusedMoEFunction
    T, H, I, E, K = 24, 64, 32, 4, 2
    index = torch.stack([torch.randperm(E)[:K] for _ in range(T)]).to(torch.int32)
    weights = torch.rand(T, K).softmax(-1)

    def reference(x, gate_up, down):
        out = torch.zeros_like(x)
        for t in range(T):
            for k in range(K):
                e = int(index[t, k])
                gate, up = (gate_up[e] @ x[t]).chunk(2)
                out[t] += weights[t, k] * (down[e] @ (F.silu(gate) * up))
        return out
    return fwd_bwd(lambda x, gu, d: LigerFusedMoEFunction.apply(x, gu, d, index, weights), reference,
                   randn(T, H) / 4, randn(E, 2 * I, H) / 8, randn(E, H, I) / 8)
