// Ported from OCANNL's own tests (github.com/ahrefs/ocannl, commit
// c338ea3fbb8bf9f405291968ef5d50d4de341fd4): strided and convolution axes.
//
// `Nn_blocks.conv2d ~kernel_size ~stride ~use_padding ~out_channels () x`
// (lib/nn_blocks.ml) is `x +* { kernel } "... | stride*oh+kh, stride*ow+kw,
// ..ic..; kh, kw, ..ic.. -> ..oc.. => ... | oh, ow, ..oc.." + { bias = 0. }`
// where the ppx writes `=+` for use_padding = true and `<+` for false, and
// `Shape.set_dim kh/kw kernel_size`, `set_dim oc out_channels` fix the
// kernel: the kernel argument here has the type `k,k,..c..->out_channels`
// (its input channels stay inferred); the bias is a parameter of unknown
// shape. `Nn_blocks.max_pool2d ~stride ~window_size` is `x @^+ "... |
// stride*oh< + wh, stride*ow< + ww, ..c..; wh, ww => ... | oh, ow, ..c.."
// (0.0 + 0.0)` (accum max, combine add) with `set_dim wh/ww window_size`: the
// window is an add of two scalar constants whose result type names wh, ww as
// `h,w`, pinned by einsums from tensors of the known size (see capture.mlir).
// `TDSL.range_of_shape ~output_dims` inputs are arguments of that type.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// test/einsum/test_conv_padding.ml, test_conv2d_padding_preserves_dims: input
// 5x5x1, kernel_size 3, stride 1, use_padding true, out_channels 4; expected
// `+_conv2d shape 0:5,1:5,2:4`.
// CHECK-LABEL: func.func @conv2d_padding_preserves_dims
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "5,5,4">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "5,5,4">
func.func @conv2d_padding_preserves_dims(%x: !ocannl.tensor<f32, "5,5,1">, %kernel: !ocannl.tensor<f32, "3,3,..c..->4">, %bias: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %c = "ocannl.einsum"(%x, %kernel) {spec = "... | 1*oh=+kh, 1*ow=+kw, ..ic..; kh, kw, ..ic.. -> ..oc.. => ... | oh, ow, ..oc.."} : (!ocannl.tensor<f32, "5,5,1">, !ocannl.tensor<f32, "3,3,..c..->4">) -> !ocannl.tensor<f32, "...|...->...">
  %out = "ocannl.add"(%c, %bias) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %out : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_padding.ml, test_conv2d_no_padding_reduces_dims: 5x5x1, kernel 3,
// stride 1, use_padding false; expected `+_conv2d shape 0:3,1:3,2:4`.
// CHECK-LABEL: func.func @conv2d_no_padding_reduces_dims
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,3,4">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "3,3,4">
func.func @conv2d_no_padding_reduces_dims(%x: !ocannl.tensor<f32, "5,5,1">, %kernel: !ocannl.tensor<f32, "3,3,..c..->4">, %bias: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %c = "ocannl.einsum"(%x, %kernel) {spec = "... | 1*oh<+kh, 1*ow<+kw, ..ic..; kh, kw, ..ic.. -> ..oc.. => ... | oh, ow, ..oc.."} : (!ocannl.tensor<f32, "5,5,1">, !ocannl.tensor<f32, "3,3,..c..->4">) -> !ocannl.tensor<f32, "...|...->...">
  %out = "ocannl.add"(%c, %bias) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %out : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_padding.ml, test_conv2d_stride_with_padding: 6x6x1, kernel 3,
// stride 2, use_padding true; expected `+_conv2d shape 0:3,1:3,2:4`.
// CHECK-LABEL: func.func @conv2d_stride_with_padding
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,3,4">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "3,3,4">
func.func @conv2d_stride_with_padding(%x: !ocannl.tensor<f32, "6,6,1">, %kernel: !ocannl.tensor<f32, "3,3,..c..->4">, %bias: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %c = "ocannl.einsum"(%x, %kernel) {spec = "... | 2*oh=+kh, 2*ow=+kw, ..ic..; kh, kw, ..ic.. -> ..oc.. => ... | oh, ow, ..oc.."} : (!ocannl.tensor<f32, "6,6,1">, !ocannl.tensor<f32, "3,3,..c..->4">) -> !ocannl.tensor<f32, "...|...->...">
  %out = "ocannl.add"(%c, %bias) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %out : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_padding.ml, test_conv2d_stride_with_padding_backprop: the same,
// summed to a scalar `loss = output ++ "...|... => 0"`; expected
// `=>_loss shape 0:1`.
// CHECK-LABEL: func.func @conv2d_stride_with_padding_backprop
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,3,4">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "3,3,4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "1">
func.func @conv2d_stride_with_padding_backprop(%x: !ocannl.tensor<f32, "6,6,1">, %kernel: !ocannl.tensor<f32, "3,3,..c..->4">, %bias: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %c = "ocannl.einsum"(%x, %kernel) {spec = "... | 2*oh=+kh, 2*ow=+kw, ..ic..; kh, kw, ..ic.. -> ..oc.. => ... | oh, ow, ..oc.."} : (!ocannl.tensor<f32, "6,6,1">, !ocannl.tensor<f32, "3,3,..c..->4">) -> !ocannl.tensor<f32, "...|...->...">
  %out = "ocannl.add"(%c, %bias) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %loss = "ocannl.einsum"(%out) {spec = "...|... => 0"} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %loss : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_padding.ml, test_conv2d_stride_without_padding: 9x9x1, kernel 3,
// stride 2, use_padding false: (9 - 3) / 2 + 1 = 4; expected `+_conv2d shape
// 0:4,1:4,2:4`.
// CHECK-LABEL: func.func @conv2d_stride_without_padding
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,4,4">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "4,4,4">
func.func @conv2d_stride_without_padding(%x: !ocannl.tensor<f32, "9,9,1">, %kernel: !ocannl.tensor<f32, "3,3,..c..->4">, %bias: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %c = "ocannl.einsum"(%x, %kernel) {spec = "... | 2*oh<+kh, 2*ow<+kw, ..ic..; kh, kw, ..ic.. -> ..oc.. => ... | oh, ow, ..oc.."} : (!ocannl.tensor<f32, "9,9,1">, !ocannl.tensor<f32, "3,3,..c..->4">) -> !ocannl.tensor<f32, "...|...->...">
  %out = "ocannl.add"(%c, %bias) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %out : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_padding.ml, test_conv2d_stride_without_padding_backprop: the same
// with a scalar loss; expected `=>_loss shape 0:1`.
// CHECK-LABEL: func.func @conv2d_stride_without_padding_backprop
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,4,4">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "4,4,4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "1">
func.func @conv2d_stride_without_padding_backprop(%x: !ocannl.tensor<f32, "9,9,1">, %kernel: !ocannl.tensor<f32, "3,3,..c..->4">, %bias: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %c = "ocannl.einsum"(%x, %kernel) {spec = "... | 2*oh<+kh, 2*ow<+kw, ..ic..; kh, kw, ..ic.. -> ..oc.. => ... | oh, ow, ..oc.."} : (!ocannl.tensor<f32, "9,9,1">, !ocannl.tensor<f32, "3,3,..c..->4">) -> !ocannl.tensor<f32, "...|...->...">
  %out = "ocannl.add"(%c, %bias) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %loss = "ocannl.einsum"(%out) {spec = "...|... => 0"} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %loss : !ocannl.tensor<f32, "...|...->...">
}

// test/operations/check_slice_shapes.ml: images of batch 2,4 and output 3,3,1
// (`TDSL.rebatch`), `batch_images = images @| batch_n` (batch_slice),
// `conv2d ~use_padding:true ~out_channels:1` (kernel_size 3, stride 1);
// expected `batch_images.value dims: single prec 4x3+3x3+3x1` (4|3,3,1; the
// `+3` is padding, a projection matter not checked here).
// CHECK-LABEL: func.func @slice_then_conv2d
// CHECK: "ocannl.batch_slice"{{.*}} -> !ocannl.tensor<f32, "4|3,3,1">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4|3,3,1">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "4|3,3,1">
func.func @slice_then_conv2d(%x: !ocannl.tensor<f32, "2,4|3,3,1">, %kernel: !ocannl.tensor<f32, "3,3,..c..->1">, %bias: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %s = "ocannl.batch_slice"(%x) {index = 0 : i64} : (!ocannl.tensor<f32, "2,4|3,3,1">) -> !ocannl.tensor<f32, "...|...->...">
  %c = "ocannl.einsum"(%s, %kernel) {spec = "... | 1*oh=+kh, 1*ow=+kw, ..ic..; kh, kw, ..ic.. -> ..oc.. => ... | oh, ow, ..oc.."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "3,3,..c..->1">) -> !ocannl.tensor<f32, "...|...->...">
  %out = "ocannl.add"(%c, %bias) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %out : !ocannl.tensor<f32, "...|...->...">
}

// test/einsum/test_max_pool2d.ml, test_max_pool2d_basic: 4x4x1, stride 2,
// window 2; expected `@^=>+_max_pool2d shape 0:2,1:2,2:1`.
// CHECK-LABEL: func.func @max_pool2d_basic
// CHECK: "ocannl.einsum"(%arg0{{.*}} -> !ocannl.tensor<f32, "2,2,1">
func.func @max_pool2d_basic(%x: !ocannl.tensor<f32, "4,4,1">, %n: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %zero = "ocannl.constant"() {value = 0.0 : f32} : () -> !ocannl.tensor<f32, "">
  %win = "ocannl.add"(%zero, %zero) : (!ocannl.tensor<f32, "">, !ocannl.tensor<f32, "">) -> !ocannl.tensor<f32, "h,w">
  %ph = "ocannl.einsum"(%n) {spec = "a=>a"} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "h">
  %pw = "ocannl.einsum"(%n) {spec = "a=>a"} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "w">
  %out = "ocannl.einsum"(%x, %win) {spec = "... | 2*oh< + wh, 2*ow< + ww, ..c..; wh, ww => ... | oh, ow, ..c..", accum = "max", combine = "add"} : (!ocannl.tensor<f32, "4,4,1">, !ocannl.tensor<f32, "h,w">) -> !ocannl.tensor<f32, "...|...->...">
  return %out : !ocannl.tensor<f32, "...|...->...">
}

// test_max_pool2d.ml, test_max_pool2d_window3: 7x7x2, stride 2, window 3:
// (7 - 3) / 2 + 1 = 3; expected `0:3,1:3,2:2`.
// CHECK-LABEL: func.func @max_pool2d_window3
// CHECK: "ocannl.einsum"(%arg0{{.*}} -> !ocannl.tensor<f32, "3,3,2">
func.func @max_pool2d_window3(%x: !ocannl.tensor<f32, "7,7,2">, %n: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %zero = "ocannl.constant"() {value = 0.0 : f32} : () -> !ocannl.tensor<f32, "">
  %win = "ocannl.add"(%zero, %zero) : (!ocannl.tensor<f32, "">, !ocannl.tensor<f32, "">) -> !ocannl.tensor<f32, "h,w">
  %ph = "ocannl.einsum"(%n) {spec = "a=>a"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "h">
  %pw = "ocannl.einsum"(%n) {spec = "a=>a"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "w">
  %out = "ocannl.einsum"(%x, %win) {spec = "... | 2*oh< + wh, 2*ow< + ww, ..c..; wh, ww => ... | oh, ow, ..c..", accum = "max", combine = "add"} : (!ocannl.tensor<f32, "7,7,2">, !ocannl.tensor<f32, "h,w">) -> !ocannl.tensor<f32, "...|...->...">
  return %out : !ocannl.tensor<f32, "...|...->...">
}

// test_max_pool2d.ml, test_max_pool2d_output_dim_1: 3x3x1, stride 2, window
// 3; expected `0:1,1:1,2:1`.
// CHECK-LABEL: func.func @max_pool2d_output_dim_1
// CHECK: "ocannl.einsum"(%arg0{{.*}} -> !ocannl.tensor<f32, "1,1,1">
func.func @max_pool2d_output_dim_1(%x: !ocannl.tensor<f32, "3,3,1">, %n: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %zero = "ocannl.constant"() {value = 0.0 : f32} : () -> !ocannl.tensor<f32, "">
  %win = "ocannl.add"(%zero, %zero) : (!ocannl.tensor<f32, "">, !ocannl.tensor<f32, "">) -> !ocannl.tensor<f32, "h,w">
  %ph = "ocannl.einsum"(%n) {spec = "a=>a"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "h">
  %pw = "ocannl.einsum"(%n) {spec = "a=>a"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "w">
  %out = "ocannl.einsum"(%x, %win) {spec = "... | 2*oh< + wh, 2*ow< + ww, ..c..; wh, ww => ... | oh, ow, ..c..", accum = "max", combine = "add"} : (!ocannl.tensor<f32, "3,3,1">, !ocannl.tensor<f32, "h,w">) -> !ocannl.tensor<f32, "...|...->...">
  return %out : !ocannl.tensor<f32, "...|...->...">
}

// test_max_pool2d.ml, test_max_pool2d_channels: 4x4x3, stride 2, window 2;
// expected `0:2,1:2,2:3` (channels preserved). test_max_pool2d_backprop
// (4x4x1) has the shape of max_pool2d_basic.
// CHECK-LABEL: func.func @max_pool2d_channels
// CHECK: "ocannl.einsum"(%arg0{{.*}} -> !ocannl.tensor<f32, "2,2,3">
func.func @max_pool2d_channels(%x: !ocannl.tensor<f32, "4,4,3">, %n: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %zero = "ocannl.constant"() {value = 0.0 : f32} : () -> !ocannl.tensor<f32, "">
  %win = "ocannl.add"(%zero, %zero) : (!ocannl.tensor<f32, "">, !ocannl.tensor<f32, "">) -> !ocannl.tensor<f32, "h,w">
  %ph = "ocannl.einsum"(%n) {spec = "a=>a"} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "h">
  %pw = "ocannl.einsum"(%n) {spec = "a=>a"} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "w">
  %out = "ocannl.einsum"(%x, %win) {spec = "... | 2*oh< + wh, 2*ow< + ww, ..c..; wh, ww => ... | oh, ow, ..c..", accum = "max", combine = "add"} : (!ocannl.tensor<f32, "4,4,3">, !ocannl.tensor<f32, "h,w">) -> !ocannl.tensor<f32, "...|...->...">
  return %out : !ocannl.tensor<f32, "...|...->...">
}

// test/einsum/test_tropical_kernel.ml: `x @^+ "... | stride*oh< + wh,
// stride*ow< + ww, ..c..; wh, ww => ... | oh, ow, ..c.." kernel` with input
// 4x4x1, a 2x2 kernel and stride 2; expected `@^=>+_op_r4x4x1_k shape
// 0:2,1:2,2:1`.
// CHECK-LABEL: func.func @tropical_kernel
// CHECK: "ocannl.einsum"(%arg0{{.*}} -> !ocannl.tensor<f32, "2,2,1">
func.func @tropical_kernel(%x: !ocannl.tensor<f32, "4,4,1">, %k: !ocannl.tensor<f32, "2,2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %out = "ocannl.einsum"(%x, %k) {spec = "... | 2*oh< + wh, 2*ow< + ww, ..c..; wh, ww => ... | oh, ow, ..c..", accum = "max", combine = "add"} : (!ocannl.tensor<f32, "4,4,1">, !ocannl.tensor<f32, "2,2">) -> !ocannl.tensor<f32, "...|...->...">
  return %out : !ocannl.tensor<f32, "...|...->...">
}

// test/einsum/test_conv_syntax.ml parses convolution and strided axis specs
// (Affine_spec with stride, dilation, use_padding). The parses are checked
// here through the sizes they imply (reference, "Affine indexing and
// convolutions": padded `o=+k`: input = stride * o; valid `o<+k`: input =
// stride * (o - 1) + (k - 1) * dilation + 1; strided `s*o`: input = s * o).
// The upstream specs without `=` or `<` (`2*o+3*k`, `o+k`, `a, 2*b+c`, ...)
// parse with `use_padding Unspecified`, which OCANNL's shape code rejects
// ("use_padding must be specified in convolution spec (use = for true, < for
// false)"; only the ppx fills it in); this project deliberately reads them as
// valid convolutions, so they are written here with an explicit `<`.

// test_conv_syntax.ml, use_padding Test 1: 'o=+k' (use_padding=true): 5 with a
// kernel of 3 gives 5.
// CHECK-LABEL: func.func @conv_syntax_padded
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "5">
func.func @conv_syntax_padded(%a0: !ocannl.tensor<f32, "5">, %a1: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0, %a1) {spec = "o=+k; k => o"} : (!ocannl.tensor<f32, "5">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, use_padding Test 2: 'o<+k': 5 - 3 + 1 = 3.
// CHECK-LABEL: func.func @conv_syntax_valid
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3">
func.func @conv_syntax_valid(%a0: !ocannl.tensor<f32, "5">, %a1: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0, %a1) {spec = "o<+k; k => o"} : (!ocannl.tensor<f32, "5">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, use_padding Test 3: '2*o=+k': 6 / 2 = 3.
// CHECK-LABEL: func.func @conv_syntax_stride_padded
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3">
func.func @conv_syntax_stride_padded(%a0: !ocannl.tensor<f32, "6">, %a1: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0, %a1) {spec = "2*o=+k; k => o"} : (!ocannl.tensor<f32, "6">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, use_padding Test 4: 'o<+3*k' (dilation 3): kernel 2
// spans 4; 7 - 4 + 1 = 4.
// CHECK-LABEL: func.func @conv_syntax_dilation_valid
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4">
func.func @conv_syntax_dilation_valid(%a0: !ocannl.tensor<f32, "7">, %a1: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0, %a1) {spec = "o<+3*k; k => o"} : (!ocannl.tensor<f32, "7">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, use_padding Test 5: '2*o=+3*k': 8 / 2 = 4.
// CHECK-LABEL: func.func @conv_syntax_stride_dilation_padded
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4">
func.func @conv_syntax_stride_dilation_padded(%a0: !ocannl.tensor<f32, "8">, %a1: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0, %a1) {spec = "2*o=+3*k; k => o"} : (!ocannl.tensor<f32, "8">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, conv parsing Test 1: '2*o+3*k' (stride 2, dilation 3),
// valid: kernel 2 spans 4; (10 - 4) / 2 + 1 = 4.
// CHECK-LABEL: func.func @conv_syntax_stride_dilation_valid
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4">
func.func @conv_syntax_stride_dilation_valid(%a0: !ocannl.tensor<f32, "10">, %a1: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0, %a1) {spec = "2*o<+3*k; k => o"} : (!ocannl.tensor<f32, "10">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, conv parsing Test 3: 'a, 2*b+c' (Label a, then stride 2
// over b with kernel c): 4 and (7 - 3) / 2 + 1 = 3.
// CHECK-LABEL: func.func @conv_syntax_mixed_labels
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,3">
func.func @conv_syntax_mixed_labels(%a0: !ocannl.tensor<f32, "4,7">, %a1: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0, %a1) {spec = "a, 2*b<+c; c => a, b"} : (!ocannl.tensor<f32, "4,7">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, conv parsing Test 4: 'i, o+k, j' (multichar mode): 2,
// 6 - 3 + 1 = 4, 5.
// CHECK-LABEL: func.func @conv_syntax_three_axes
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,4,5">
func.func @conv_syntax_three_axes(%a0: !ocannl.tensor<f32, "2,6,5">, %a1: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0, %a1) {spec = "i, o<+k, j; k => i, o, j"} : (!ocannl.tensor<f32, "2,6,5">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, conv parsing Test 5: 'a+bc' (kernel label `bc`): 9 - 4
// + 1 = 6.
// CHECK-LABEL: func.func @conv_syntax_multichar_kernel
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "6">
func.func @conv_syntax_multichar_kernel(%a0: !ocannl.tensor<f32, "9">, %a1: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0, %a1) {spec = "a<+bc; bc => a"} : (!ocannl.tensor<f32, "9">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, conv parsing Test 6: 'i, j -> 2*i+j' (input i, j; the
// output axis strides over i with kernel j): input 3,2 gives an output axis
// of 2 * (3 - 1) + 2 = 6.
// CHECK-LABEL: func.func @conv_syntax_input_labels_in_output
// CHECK-SAME: !ocannl.tensor<f32, "3,2->6">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,2">
func.func @conv_syntax_input_labels_in_output(%a0: !ocannl.tensor<f32, "3,2->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0) {spec = "i, j -> 2*i<+j => i, j"} : (!ocannl.tensor<f32, "3,2->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, conv parsing Test 7: 'batch|input->3*output+1*kernel,':
// batch 2, input 4, output (7 - 1) / 3 + 1 = 3 with a kernel of 1.
// CHECK-LABEL: func.func @conv_syntax_all_rows
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|4->3">
func.func @conv_syntax_all_rows(%a0: !ocannl.tensor<f32, "2|4->7">, %a1: !ocannl.tensor<f32, "1">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0, %a1) {spec = "batch|input->3*output<+1*kernel,; kernel => batch|input->output"} : (!ocannl.tensor<f32, "2|4->7">, !ocannl.tensor<f32, "1">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, strided Test 1: '2*output': 6 / 2 = 3.
// CHECK-LABEL: func.func @strided_output
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3">
func.func @strided_output(%a0: !ocannl.tensor<f32, "6">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0) {spec = "2*output => output"} : (!ocannl.tensor<f32, "6">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, strided Test 2: '3*i': 9 / 3 = 3.
// CHECK-LABEL: func.func @strided_single_char_label
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3">
func.func @strided_single_char_label(%a0: !ocannl.tensor<f32, "9">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0) {spec = "3*i => i"} : (!ocannl.tensor<f32, "9">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, strided Test 3: 'input -> 2*output': input 5, output
// 8 / 2 = 4.
// CHECK-LABEL: func.func @strided_in_einsum
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "5->4">
func.func @strided_in_einsum(%a0: !ocannl.tensor<f32, "5->8">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0) {spec = "input -> 2*output => input -> output"} : (!ocannl.tensor<f32, "5->8">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_conv_syntax.ml, strided Test 4: 'regular, 3*strided': 2 and 9 / 3 = 3.
// CHECK-LABEL: func.func @strided_mixed
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,3">
func.func @strided_mixed(%a0: !ocannl.tensor<f32, "2,9">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a0) {spec = "regular, 3*strided => regular, strided"} : (!ocannl.tensor<f32, "2,9">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}
