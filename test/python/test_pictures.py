"""rocktile.pictures: the LDS bank map and pipeline schedule read from a
compiled kernel, and their SVG pictures."""
import xml.etree.ElementTree as ET

import pytest

import rocktile
from descriptor_matmul import matmul_descriptor_kernel
from matmul import matmul_kernel
from rocktile import pictures

SVG = "{http://www.w3.org/2000/svg}"
GEMM_SIGNATURE = {**{p: "*bf16:16:range32" for p in ("a_ptr", "b_ptr")}, "c_ptr": "*fp32:16:range32",
                  "bias_ptr": "*fp32:16:range32",
                  **{n: "i32:16" for n in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")}}
GEMM_CONSTEXPRS = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, HAS_BIAS=False,
                       ACTIVATION="", stride_ak=1, stride_bn=1, stride_cn=1)


@pytest.fixture(scope="module")
def b_exchange():
    kernel = rocktile.compile(matmul_kernel, GEMM_SIGNATURE, GEMM_CONSTEXPRS, target="gfx950", num_stages=1)
    exchanges = pictures.lds_exchanges(kernel.asm["tile"])
    assert len(exchanges) == 2  # A and B
    return exchanges[1]


def test_bank_map_of_the_chosen_arrangement_has_no_conflicts(b_exchange):
    from_type, to_type = b_exchange
    assert from_type.startswith("tensor<64x128xbf16, #tile.blocked<") and "#tile.linear<" in to_type
    chosen = pictures.lds_bank_map(from_type, to_type, "gfx950")
    assert chosen["transposed_read"] and "maxPhase = 16" in chosen["lds"]
    for side in ("write", "read"):
        lanes = chosen[side]["lanes"]
        assert chosen[side]["conflict_cycles"] == 0
        assert all(len(bank) <= 1 for phase in lanes for bank in phase)
        assert len(lanes[0]) == 64  # gfx950's banks
        # every lane of the wave appears, each in its own phase
        seen = sorted({lane for p, phase in enumerate(lanes) for bank in phase for lane in bank})
        assert seen == list(range(64))
    # Unswizzled and read plainly, 16 lanes of a phase read down a column: 4 to a bank.
    plain = pictures.lds_bank_map(from_type, to_type, "gfx950", row_major=True)
    assert plain["read"]["conflict_cycles"] == 768
    assert max(len(bank) for phase in plain["read"]["lanes"] for bank in phase) == 4


def test_bank_picture_marks_conflicts(b_exchange):
    svg = pictures.lds_bank_svg(*b_exchange, "gfx950")
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    fills = [r.get("fill") for r in root.iter(SVG + "rect")]
    assert "#e06666" not in fills  # conflict-free: no red cell
    assert "0 conflict cycles" in svg


def test_bad_types_are_an_error():
    with pytest.raises(ValueError, match="each with a #tile layout"):
        pictures.lds_bank_map("tensor<8xf32>", "tensor<8xf32>", "gfx950")
    with pytest.raises(ValueError, match="unknown target 'gfx42'"):
        pictures.lds_bank_map("tensor<8xf32>", "tensor<8xf32>", "gfx42")


@pytest.mark.parametrize("stages", [2, 3])
def test_pipeline_schedule_of_the_tdm_gemm(stages):
    signature = {"a_ptr": "*bf16:16", "b_ptr": "*bf16:16", "c_ptr": "*fp32:16", "M": "i32", "N": "i32", "K": "i32",
                 "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16"}
    kernel = rocktile.compile(matmul_descriptor_kernel, signature, {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
                              target="gfx1250", num_stages=stages)
    schedule = pictures.copy_schedule(kernel.asm["tile"])
    # A and B each one copy per iteration: in the loop a wait leaves the
    # copies of the next stages - 2 tiles in flight, in the last iteration none.
    assert schedule == (stages, stages - 1, stages - 1, sorted({2 * (stages - 2), 0}, reverse=True))
    cells = dict(pictures.copy_cells(schedule, 5))
    assert cells["prologue"][:stages - 1] == [f"copy->s{t}" for t in range(stages - 1)]
    assert cells["iteration 1"][1] == "wait,read s1"
    assert cells["iteration 1"][stages] == "copy->s0"  # tile `stages` into the slot tile 0 left
    root = ET.fromstring(pictures.pipeline_svg(schedule, 5))
    labels = [t.text for t in root.iter(SVG + "text")]
    assert labels.count("wait,read s0") == (5 + stages - 1) // stages
