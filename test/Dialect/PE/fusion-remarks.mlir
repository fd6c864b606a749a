// Every reason a fusion pass gives for not moving an encoding producer into
// an attention, as a missed-optimization remark (category: the pass).
// RUN: pe-opt %s --pe-fuse-encodings-into-attention --remarks-filter='pe-.*' --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-fuse-rope-into-attention --pe-fuse-alibi-into-attention --remarks-filter='pe-fuse-alibi.*' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALIBI
// Without a filter nothing is reported.
// RUN: pe-opt %s --pe-fuse-encodings-into-attention -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// QUIET-NOT: remark: [Missed]

func.func @different_frequencies(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %g: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %kr = pe.rope half %k inv_freq(%g : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %attn_init0 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-remark@+1 {{[Missed] rope-not-fused | Category:pe-fuse-encodings-into-attention | Reason="the query's and the key's pe.rope differ in layout, rotary dimension, frequencies or attention scaling"}}
  %o = pe.attention %qr, %kr, %k outs(%attn_init0 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

func.func @query_other_user(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %attn_init1 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-remark@+1 {{Reason="the query's pe.rope result has other users, so it must exist anyway"}}
  %o = pe.attention %qr, %q, %q outs(%attn_init1 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o, %qr : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
}

func.func @key_other_user(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %kr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %attn_init2 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-remark@+1 {{Reason="the key's pe.rope result has other users, so it must exist anyway"}}
  %o = pe.attention %qr, %kr, %q outs(%attn_init2 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o, %kr : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
}

func.func @positions_and_per_token_key(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %p: tensor<8xi64>, %c: tensor<1x8x8xf32>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) positions(%p : tensor<8xi64>) : tensor<1x4x8x16xf32>
  %kr = pe.rope half %q cache(%c, %c : tensor<1x8x8xf32>, tensor<1x8x8xf32>) : tensor<1x4x8x16xf32>
  %attn_init3 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-remark@+1 {{Reason="the key's pe.rope takes per-token [B, T, R/2] caches; the rope encoding takes position-indexed tables"}}
  %o = pe.attention %qr, %kr, %q outs(%attn_init3 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

func.func @key_only(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %kr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %attn_init4 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-remark@+1 {{Reason="only the key is rotated by a pe.rope; the rope encoding rotates the queries (and the keys)"}}
  %o = pe.attention %q, %kr, %q outs(%attn_init4 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// ALIBI: remark: [Missed] alibi-not-fused | Category:pe-fuse-alibi-into-attention | Reason="the pe.alibi_bias result has other users
func.func @alibi_other_user(%q: tensor<1x4x8x16xf32>) -> (tensor<1x4x8x16xf32>, tensor<4x8x8xf32>) {
  %b = pe.alibi_bias signed : tensor<4x8x8xf32>
  %attn_init5 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-remark@+1 {{[Missed] alibi-not-fused | Category:pe-fuse-encodings-into-attention | Reason="the pe.alibi_bias result has other users, so it must exist anyway"}}
  %r = pe.attention %q, %q, %q bias(%b : tensor<4x8x8xf32>) outs(%attn_init5 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r, %b : tensor<1x4x8x16xf32>, tensor<4x8x8xf32>
}

// ALIBI: Reason="the pe.alibi_bias broadcasts over the queries"
func.func @alibi_broadcast(%q: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %b = pe.alibi_bias key : tensor<4x1x8xf32>
  %attn_init6 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-remark@+1 {{Reason="the pe.alibi_bias broadcasts over the queries"}}
  %r = pe.attention %q, %q, %q bias(%b : tensor<4x1x8xf32>) outs(%attn_init6 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r : tensor<1x4x8x16xf32>
}

// ALIBI: Reason="the pe.alibi_bias broadcasts over the keys"
func.func @alibi_broadcast_keys(%q: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %b = pe.alibi_bias key : tensor<4x8x1xf32>
  %attn_init7 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-remark@+1 {{Reason="the pe.alibi_bias broadcasts over the keys"}}
  %r = pe.attention %q, %q, %q bias(%b : tensor<4x8x1xf32>) outs(%attn_init7 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r : tensor<1x4x8x16xf32>
}

// ALIBI: Reason="the pe.alibi_bias head count differs from the query's"
func.func @alibi_heads(%q: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %b = pe.alibi_bias key : tensor<1x8x8xf32>
  %attn_init8 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-remark@+1 {{Reason="the pe.alibi_bias head count differs from the query's"}}
  %r = pe.attention %q, %q, %q bias(%b : tensor<1x8x8xf32>) outs(%attn_init8 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r : tensor<1x4x8x16xf32>
}

func.func @bshd_rope(%q: tensor<1x8x4x16xf32>, %f: tensor<8xf32>) -> tensor<1x8x4x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x8x4x16xf32>
  %attn_init9 = tensor.empty() : tensor<1x8x4x16xf32>
  // expected-remark@+1 {{Reason="a pe.rope rotates along dimension 2, not the attention's sequence dimension 1"}}
  %o = pe.attention %qr, %q, %q outs(%attn_init9 : tensor<1x8x4x16xf32>) {layout = #pe<attention_layout bshd>} : tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32> -> tensor<1x8x4x16xf32>
  return %o : tensor<1x8x4x16xf32>
}

func.func @per_token_rope(%q: tensor<1x4x8x16xf32>, %c: tensor<1x8x8xf32>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q cache(%c, %c : tensor<1x8x8xf32>, tensor<1x8x8xf32>) : tensor<1x4x8x16xf32>
  %attn_init10 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-remark@+1 {{Reason="the query's pe.rope takes per-token [B, T, R/2] caches; the rope encoding takes position-indexed tables"}}
  %o = pe.attention %qr, %q, %q outs(%attn_init10 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// Nothing to fuse, nothing to report.
func.func @plain(%q: tensor<1x4x8x16xf32>, %b: tensor<4x8x8xf32>) -> tensor<1x4x8x16xf32> {
  %attn_init11 = tensor.empty() : tensor<1x4x8x16xf32>
  %r = pe.attention %q, %q, %q bias(%b : tensor<4x8x8xf32>) outs(%attn_init11 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r : tensor<1x4x8x16xf32>
}
