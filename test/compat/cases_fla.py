"""flash-linear-attention (fla-core): each op through its public function in
fla.ops / fla.modules, forward and backward, against the naive reference the
library ships beside it (fla/ops/*/naive.py, fla.modules' *_ref) or the torch
formula. Shapes are [batch, time, heads, dim], fla's default layout; time is
not a multiple of the chunk size, so the ragged last chunk is exercised."""
import torch
import torch.nn.functional as F

from harness import NotApplicable, case, fwd_bwd, races_across_programs, randn

P = "flash-linear-attention"
B, T, H, K, V = 1, 75, 2, 32, 32


def qkv(k=K, v=V):
    return randn(B, T, H, k), randn(B, T, H, k), randn(B, T, H, v)


def first(fn):
    """The output of an op that returns (output, final state)."""
    return lambda *a: fn(*a)[0]


def log_decay(*shape):
    return F.logsigmoid(torch.randn(*shape)).requires_grad_()


@case(P, "chunk_simple_gla", atol=2e-3, rtol=2e-3)
def chunk_simple_gla():
    from fla.ops.simple_gla import chunk_simple_gla
    from fla.ops.simple_gla.naive import naive_recurrent_simple_gla
    return fwd_bwd(first(chunk_simple_gla), first(naive_recurrent_simple_gla), *qkv(), log_decay(B, T, H))


@case(P, "fused_recurrent_simple_gla", atol=2e-3, rtol=2e-3)
def fused_recurrent_simple_gla():
    from fla.ops.simple_gla import fused_recurrent_simple_gla
    from fla.ops.simple_gla.naive import naive_recurrent_simple_gla
    return fwd_bwd(first(fused_recurrent_simple_gla), first(naive_recurrent_simple_gla), *qkv(), log_decay(B, T, H))


@case(P, "chunk_gla", atol=2e-3, rtol=2e-3)
def chunk_gla():
    from fla.ops.gla import chunk_gla
    from fla.ops.gla.naive import naive_recurrent_gla
    return fwd_bwd(first(chunk_gla), first(naive_recurrent_gla), *qkv(), log_decay(B, T, H, K))


@case(P, "fused_recurrent_gla", atol=2e-3, rtol=2e-3)
def fused_recurrent_gla():
    from fla.ops.gla import fused_recurrent_gla
    from fla.ops.gla.naive import naive_recurrent_gla
    return fwd_bwd(first(fused_recurrent_gla), first(naive_recurrent_gla), *qkv(), log_decay(B, T, H, K))


def delta_inputs():
    q, k, v = qkv()
    k = F.normalize(k.detach(), dim=-1).requires_grad_()  # the delta rule wants unit keys
    return q, k, v, torch.rand(B, T, H).requires_grad_()


def head_first(fn):
    """A reference written for [batch, heads, time, dim] tensors, on fla's layout."""
    return lambda *a: fn(*(x.transpose(1, 2) for x in a))[0].transpose(1, 2)


@case(P, "chunk_delta_rule (bf16)", ratio=0.008)  # fla's test_chunk's tolerance
def chunk_delta_rule():
    from fla.ops.delta_rule import chunk_delta_rule
    from fla.ops.delta_rule.naive import delta_rule_recurrence
    # It takes bf16 only (it asserts so); the reference computes in fp32.
    inputs = [x.detach().bfloat16().requires_grad_() for x in delta_inputs()]
    return fwd_bwd(first(chunk_delta_rule),
                   head_first(lambda *a: [o.bfloat16() for o in delta_rule_recurrence(*(x.float() for x in a))]),
                   *inputs)


@case(P, "fused_recurrent_delta_rule", atol=2e-3, rtol=2e-3)
def fused_recurrent_delta_rule():
    from fla.ops.delta_rule import fused_recurrent_delta_rule
    from fla.ops.delta_rule.naive import delta_rule_recurrence
    return fwd_bwd(first(fused_recurrent_delta_rule), head_first(delta_rule_recurrence), *delta_inputs())


def gated_delta_inputs():
    q, k, v, beta = delta_inputs()
    return q, k, v, log_decay(B, T, H), beta


@case(P, "chunk_gated_delta_rule", atol=2e-3, rtol=2e-3)
def chunk_gated_delta_rule():
    from fla.ops.gated_delta_rule import chunk_gated_delta_rule
    from fla.ops.gated_delta_rule.naive import naive_recurrent_gated_delta_rule
    return fwd_bwd(first(chunk_gated_delta_rule),
                   lambda q, k, v, g, b: naive_recurrent_gated_delta_rule(q, k, v, b, g)[0], *gated_delta_inputs())


@case(P, "fused_recurrent_gated_delta_rule", atol=2e-3, rtol=2e-3)
def fused_recurrent_gated_delta_rule():
    from fla.ops.gated_delta_rule import fused_recurrent_gated_delta_rule
    from fla.ops.gated_delta_rule.naive import naive_recurrent_gated_delta_rule
    return fwd_bwd(lambda q, k, v, g, b: fused_recurrent_gated_delta_rule(q, k, v, g=g, beta=b)[0],
                   lambda q, k, v, g, b: naive_recurrent_gated_delta_rule(q, k, v, b, g)[0], *gated_delta_inputs(),
                   backward=False)  # fla has no backward for it


@case(P, "chunk_kda", atol=3e-3, rtol=3e-3)
def chunk_kda():
    from fla.ops.kda import chunk_kda
    from fla.ops.kda.naive import naive_recurrent_kda
    q, k, v, beta = delta_inputs()
    g = log_decay(B, T, H, K)
    return fwd_bwd(first(chunk_kda), first(naive_recurrent_kda), q, k, v, g, beta)


def comba_inputs():
    q, k, v, beta = delta_inputs()
    return q, k, v, F.normalize(torch.randn(B, T, H, K), dim=-1).requires_grad_(), log_decay(B, T, H), beta


# fla ships two naive COMBA references that disagree (by 0.06 here); the
# chunked one is what both kernels compute.
@case(P, "chunk_comba", atol=3e-3, rtol=3e-3)
def chunk_comba():
    from fla.ops.comba import chunk_comba
    from fla.ops.comba.naive import naive_chunk_comba
    return fwd_bwd(lambda *a: chunk_comba(*a)[0], lambda *a: naive_chunk_comba(*a)[0], *comba_inputs())


@case(P, "fused_recurrent_comba", atol=3e-3, rtol=3e-3)
def fused_recurrent_comba():
    from fla.ops.comba import fused_recurrent_comba
    from fla.ops.comba.naive import naive_chunk_comba
    return fwd_bwd(lambda q, k, v, p, g, b: fused_recurrent_comba(q, k, p, v, g, b)[0],
                   lambda *a: naive_chunk_comba(*a)[0], *comba_inputs(), backward=False)


@case(P, "chunk_linear_attn", atol=2e-3, rtol=2e-3)
def chunk_linear_attn():
    from fla.ops.linear_attn import chunk_linear_attn
    from fla.ops.linear_attn.naive import naive_recurrent_linear_attn
    return fwd_bwd(lambda q, k, v: chunk_linear_attn(q, k, v, normalize=False)[0],
                   lambda q, k, v: naive_recurrent_linear_attn(q, k, v)[0], *qkv())


@case(P, "fused_recurrent_linear_attn", atol=2e-3, rtol=2e-3)
def fused_recurrent_linear_attn():
    from fla.ops.linear_attn import fused_recurrent_linear_attn
    from fla.ops.linear_attn.naive import naive_recurrent_linear_attn
    return fwd_bwd(lambda q, k, v: fused_recurrent_linear_attn(q, k, v, normalize=False)[0],
                   lambda q, k, v: naive_recurrent_linear_attn(q, k, v)[0], *qkv())


@case(P, "chunk_retention", atol=2e-3, rtol=2e-3)
def chunk_retention():
    from fla.ops.retention import chunk_retention
    from fla.ops.retention.naive import naive_retention
    return fwd_bwd(first(chunk_retention), head_first(lambda *a: (naive_retention(*a),)), *qkv())


@case(P, "parallel_retention", atol=2e-3, rtol=2e-3)
def parallel_retention():
    from fla.ops.retention import parallel_retention
    from fla.ops.retention.naive import naive_retention
    return fwd_bwd(first(parallel_retention), head_first(lambda *a: (naive_retention(*a),)), *qkv())


@case(P, "fused_recurrent_hgrn", atol=1e-4, rtol=1e-4)
def fused_recurrent_hgrn():
    from fla.ops.hgrn import fused_recurrent_hgrn
    from fla.ops.hgrn.naive import naive_recurrent_hgrn
    return fwd_bwd(first(fused_recurrent_hgrn), first(naive_recurrent_hgrn), randn(B, T, 64), log_decay(B, T, 64))


@case(P, "parallel_attn", atol=2e-3, rtol=2e-3)
def parallel_attn():
    from fla.ops.attn import parallel_attn
    from fla.ops.attn.naive import naive_parallel_attn
    return fwd_bwd(lambda q, k, v: parallel_attn(q, k, v),
                   lambda q, k, v: naive_parallel_attn(q, k, v)[0] if isinstance(naive_parallel_attn(q, k, v), tuple)
                   else naive_parallel_attn(q, k, v), *qkv())


@case(P, "parallel_based", atol=2e-3, rtol=2e-3)
def parallel_based():
    from fla.ops.based import parallel_based
    from fla.ops.based.naive import naive_parallel_based
    q, k, v = randn(B, T, H, 16), randn(B, T, H, 16), randn(B, T, H, V)
    return fwd_bwd(parallel_based, head_first(lambda *a: (naive_parallel_based(*a),)), q, k, v)


@case(P, "parallel_forgetting_attn", atol=2e-3, rtol=2e-3)
def parallel_forgetting_attn():
    from fla.ops.forgetting_attn import parallel_forgetting_attn
    from fla.ops.forgetting_attn.naive import naive_forgetting_attn
    return fwd_bwd(parallel_forgetting_attn, naive_forgetting_attn, *qkv(), log_decay(B, T, H))


@case(P, "modules.rms_norm", atol=1e-4, rtol=1e-4)
def rms_norm():
    from fla.modules.norm.layernorm import rms_norm, rms_norm_ref
    return fwd_bwd(lambda x, w: rms_norm(x, w, None), lambda x, w: rms_norm_ref(x, w, None),
                   randn(3, 20, 96), randn(96))


@case(P, "modules.layer_norm", atol=1e-4, rtol=1e-4)
def layer_norm():
    from fla.modules.norm.layernorm import layer_norm
    return fwd_bwd(layer_norm, lambda x, w, b: F.layer_norm(x, (96,), w, b, 1e-5), randn(3, 20, 96), randn(96),
                   randn(96))


@case(P, "modules.l2norm", atol=1e-5, rtol=1e-5)
def l2norm():
    from fla.modules.norm.l2norm import l2norm
    return fwd_bwd(l2norm, lambda x: x * torch.rsqrt((x * x).sum(-1, keepdim=True) + 1e-6), randn(4, 30, 64))


@case(P, "modules.rms_norm_gated (swish gate)", atol=1e-4, rtol=1e-4)
def rms_norm_gated():
    from fla.modules.norm.fused_norm_gate import rms_norm_gated
    # Its backward kernel lets a program's last tile run into the next
    # program's rows and stores their dx from both (its comment says so): a
    # race across programs that the kernel means.
    with races_across_programs():
        return fwd_bwd(lambda x, g, w: rms_norm_gated(x, g, w, None, activation="swish"),
                       lambda x, g, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w * F.silu(g),
                       randn(40, 64), randn(40, 64), randn(64))


@case(P, "modules.FusedCrossEntropyLoss", atol=1e-4, rtol=1e-4)
def fused_cross_entropy():
    raise NotApplicable("FusedCrossEntropyLoss asserts its input is a CUDA, NPU or XPU tensor")


@case(P, "modules.ShortConvolution (causal conv1d, silu)", atol=1e-4, rtol=1e-4)
def short_convolution():
    from fla.modules import ShortConvolution
    conv = ShortConvolution(64, 4, activation="silu")
    weight = conv.weight.detach()

    def reference(x):
        y = F.conv1d(F.pad(x.transpose(1, 2), (3, 0)), weight, conv.bias, groups=64)
        return F.silu(y).transpose(1, 2)
    return fwd_bwd(lambda x: conv(x)[0], reference, randn(2, T, 64))


@case(P, "modules.RotaryEmbedding", atol=1e-5, rtol=1e-5)
def rotary():
    from fla.modules import RotaryEmbedding
    rope = RotaryEmbedding(K)
    pos = torch.arange(T, dtype=torch.float32)
    freqs = torch.outer(pos, 1.0 / 10000 ** (torch.arange(0, K, 2, dtype=torch.float32) / K))
    cos, sin = freqs.cos()[None, :, None], freqs.sin()[None, :, None]

    def rotate(x):  # fla rotates the two halves (GPT-NeoX style)
        a, b = x.chunk(2, -1)
        return torch.cat((a * cos - b * sin, a * sin + b * cos), -1)
    return fwd_bwd(lambda q, k: rope(q, k), lambda q, k: (rotate(q), rotate(k)), randn(B, T, H, K), randn(B, T, H, K))
