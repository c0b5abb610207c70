// RUN: rocktile-opt %s -split-input-file --tile-pipeline-copies="target=gfx1250" -verify-diagnostics

// 5 stages of a 64 KiB block need 6 blocks (the slots and room for the
// loop's other LDS); gfx1250's 320 KiB hold 5: 4 stages.
func.func @fewer_stages(%base: !tile.ptr<bf16>, %M: i32, %s: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-warning @+1 {{num_stages=5 needs 393216 bytes of LDS for this loop's copies; gfx1250 has 327680: pipelined with 4 stages}}
  scf.for %k = %c0 to %n step %c1 : i32 {
    %x = tile.descriptor_load %base[%k, %c0] shape [%M, %M] strides [%s, %c1] : !tile.ptr<bf16> -> tensor<128x256xbf16>
  } {tile.num_stages = 5 : i32}
  return
}

// -----

// Two 128 KiB blocks per iteration: not even 2 stages fit.
func.func @no_stages(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %M: i32, %s: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-warning @+1 {{num_stages=2 needs 786432 bytes of LDS for this loop's copies; gfx1250 has 327680: pipelined with 1 stage}}
  scf.for %k = %c0 to %n step %c1 : i32 {
    %x = tile.descriptor_load %a[%k, %c0] shape [%M, %M] strides [%s, %c1] : !tile.ptr<bf16> -> tensor<256x256xbf16>
    %y = tile.descriptor_load %b[%k, %c0] shape [%M, %M] strides [%s, %c1] : !tile.ptr<bf16> -> tensor<256x256xbf16>
  } {tile.num_stages = 2 : i32}
  return
}
