// A small CNN forward pass to run on real data with ocannl-run:
//   ocannl-run examples/cnn-run.mlir --entry cnn --inputs x.npy k1.npy w2.npy b2.npy --outputs y.npy
// (tools/tests/run/cnn_check.py does this and compares with NumPy).
//
// conv (valid, 3x3, 4 channels) -> relu -> max-pool (window 2, stride 2)
// -> dense (10 classes). Memory layout: batch, output, input axes.
// Written down: the images "..b..|8,8,1" (the batch row comes from the
// data), the conv's result "..b..|6,6,4", the pooled "..b..|3,3,4" and the
// classes "..b..|10". Inferred:
//   k1: "3,3,1->4"  (.npy (4, 3, 3, 1)): the kernel size from the input and
//                   the conv output (8 - 6 + 1), channels from the spec;
//   w2: "3,3,4->10" (.npy (10, 3, 3, 4)): the dense layer's input row is
//                   the pooled tensor's output row;
//   b2: "10".
// The pooling window is a constant (zeros, combined by addition, reduced by
// max): a plain max-pool.
func.func @cnn(%x: !ocannl.tensor<f32, "..b..|8,8,1">, %k1: !ocannl.tensor<f32, "|...->...">,
               %w2: !ocannl.tensor<f32, "|...->...">, %b2: !ocannl.tensor<f32, "|...->...">)
    -> !ocannl.tensor<f32, "..b..|10"> {
  %c = "ocannl.einsum"(%x, %k1) {spec = "..b..|oh<+kh,ow<+kw,ci; kh,kw,ci->co => ..b..|oh,ow,co"} : (!ocannl.tensor<f32, "..b..|8,8,1">, !ocannl.tensor<f32, "|...->...">) -> !ocannl.tensor<f32, "..b..|6,6,4">
  %r = "ocannl.relu"(%c) : (!ocannl.tensor<f32, "..b..|6,6,4">) -> !ocannl.tensor<f32, "..b..|6,6,4">
  %win = "ocannl.constant"() {value = 0.0 : f32} : () -> !ocannl.tensor<f32, "2,2">
  %p = "ocannl.einsum"(%r, %win) {spec = "..b..|2*ph<+wh,2*pw<+ww,c; wh,ww => ..b..|ph,pw,c", accum = "max", combine = "add"} : (!ocannl.tensor<f32, "..b..|6,6,4">, !ocannl.tensor<f32, "2,2">) -> !ocannl.tensor<f32, "..b..|3,3,4">
  %y = "ocannl.fma"(%w2, %p, %b2) : (!ocannl.tensor<f32, "|...->...">, !ocannl.tensor<f32, "..b..|3,3,4">, !ocannl.tensor<f32, "|...->...">) -> !ocannl.tensor<f32, "..b..|10">
  return %y : !ocannl.tensor<f32, "..b..|10">
}
