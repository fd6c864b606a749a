#===- bench/gpu/workloads.sh - the GPU benchmark workloads as .mlir -------===#
#
# Sourced by bench/gpu/run.sh and bench/gpu/prepare.sh.
#
#   write_workloads DIR B H HKV T D TK
#
# writes DIR/w2_f16.mlir, w2_bf16.mlir (@w2: Llama-3 prefill, RoPE half with
# an f64 inv_freq table, causal), w3_bf16.mlir (@w3: ALiBi symmetric prefill,
# causal) and w4_f16.mlir (@w4: decode of one query at position TK - 1 over
# a TK-token cache, RoPE on the query only); q [B, H, T, D], k and v
# [B, HKV, T, D] (decode: q [B, H, 1, D], k and v [B, HKV, TK, D]).
#===----------------------------------------------------------------------===#

write_workloads() {
  local dir="$1" B="$2" H="$3" HKV="$4" T="$5" D="$6" TK="$7"
  local R2=$((D / 2))
  cat >"$dir/w2_f16.mlir" <<MLIR
func.func @w2(%q: tensor<${B}x${H}x${T}x${D}xf16>, %k: tensor<${B}x${HKV}x${T}x${D}xf16>, %v: tensor<${B}x${HKV}x${T}x${D}xf16>, %f: tensor<${R2}xf64>) -> tensor<${B}x${H}x${T}x${D}xf16> {
  %init = tensor.empty() : tensor<${B}x${H}x${T}x${D}xf16>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<${R2}xf64>) outs(%init : tensor<${B}x${H}x${T}x${D}xf16>) {causal} : tensor<${B}x${H}x${T}x${D}xf16>, tensor<${B}x${HKV}x${T}x${D}xf16>, tensor<${B}x${HKV}x${T}x${D}xf16> -> tensor<${B}x${H}x${T}x${D}xf16>
  return %0 : tensor<${B}x${H}x${T}x${D}xf16>
}
MLIR
  sed 's/f16/bf16/g' "$dir/w2_f16.mlir" >"$dir/w2_bf16.mlir"
  cat >"$dir/w3_bf16.mlir" <<MLIR
func.func @w3(%q: tensor<${B}x${H}x${T}x${D}xbf16>, %k: tensor<${B}x${HKV}x${T}x${D}xbf16>, %v: tensor<${B}x${HKV}x${T}x${D}xbf16>) -> tensor<${B}x${H}x${T}x${D}xbf16> {
  %init = tensor.empty() : tensor<${B}x${H}x${T}x${D}xbf16>
  %0 = pe.attention %q, %k, %v alibi <symmetric> outs(%init : tensor<${B}x${H}x${T}x${D}xbf16>) {causal} : tensor<${B}x${H}x${T}x${D}xbf16>, tensor<${B}x${HKV}x${T}x${D}xbf16>, tensor<${B}x${HKV}x${T}x${D}xbf16> -> tensor<${B}x${H}x${T}x${D}xbf16>
  return %0 : tensor<${B}x${H}x${T}x${D}xbf16>
}
MLIR
  cat >"$dir/w4_f16.mlir" <<MLIR
func.func @w4(%q: tensor<${B}x${H}x1x${D}xf16>, %k: tensor<${B}x${HKV}x${TK}x${D}xf16>, %v: tensor<${B}x${HKV}x${TK}x${D}xf16>, %f: tensor<${R2}xf64>) -> tensor<${B}x${H}x1x${D}xf16> {
  %init = tensor.empty() : tensor<${B}x${H}x1x${D}xf16>
  %0 = pe.attention %q, %k, %v rope <half, query_only, query_offset = $((TK - 1))> inv_freq(%f : tensor<${R2}xf64>) outs(%init : tensor<${B}x${H}x1x${D}xf16>) : tensor<${B}x${H}x1x${D}xf16>, tensor<${B}x${HKV}x${TK}x${D}xf16>, tensor<${B}x${HKV}x${TK}x${D}xf16> -> tensor<${B}x${H}x1x${D}xf16>
  return %0 : tensor<${B}x${H}x1x${D}xf16>
}
MLIR
}
