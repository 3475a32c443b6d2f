// A function of more than 64 loop nests runs in helpers of at most 64
// (`ocannl-outline-nests`, in `ocannl-to-llvm`: LLVM's passes are
// superlinear in one function's size): a concatenation of 100 parts
// [k, k] for k = 0..99 (one nest per part) gives 0, 0, 1, 1, ... 99, 99
// in order, every helper having run where its nests were.
// Only ocannl-run here: nothing to run through the mlir-opt plugin.
// UNSUPPORTED: plugin
// RUN: ocannl-run %s | FileCheck %s
// RUN: ocannl-run %s --threads 2 | FileCheck %s
// RUN: ocannl-run %s --emit llvm -o %t.ll && FileCheck %s --check-prefix=LL < %t.ll

// CHECK: result #0: float32[200] (spec "200")
// CHECK-NEXT: min 0.000000 max 99.000000 mean 49.500000 cells [0.000000, 0.000000, 1.000000, 1.000000, 2.000000, 2.000000, ...]
// The helpers are internal and never inlined; the entry keeps its name and
// its C signature (one pointer per buffer).
// LL: define void @concat100(ptr
// LL-NOT: define
// LL: define internal {{.*}}void @__ocannl_nests0_concat100(ptr
// LL: attributes #{{[0-9]+}} = { {{.*}}noinline

func.func @concat100() -> !ocannl.tensor<f32, "...|...->..."> {
  %p0 = "ocannl.constant"() {value = 0.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p1 = "ocannl.constant"() {value = 1.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p2 = "ocannl.constant"() {value = 2.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p3 = "ocannl.constant"() {value = 3.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p4 = "ocannl.constant"() {value = 4.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p5 = "ocannl.constant"() {value = 5.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p6 = "ocannl.constant"() {value = 6.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p7 = "ocannl.constant"() {value = 7.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p8 = "ocannl.constant"() {value = 8.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p9 = "ocannl.constant"() {value = 9.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p10 = "ocannl.constant"() {value = 10.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p11 = "ocannl.constant"() {value = 11.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p12 = "ocannl.constant"() {value = 12.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p13 = "ocannl.constant"() {value = 13.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p14 = "ocannl.constant"() {value = 14.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p15 = "ocannl.constant"() {value = 15.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p16 = "ocannl.constant"() {value = 16.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p17 = "ocannl.constant"() {value = 17.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p18 = "ocannl.constant"() {value = 18.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p19 = "ocannl.constant"() {value = 19.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p20 = "ocannl.constant"() {value = 20.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p21 = "ocannl.constant"() {value = 21.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p22 = "ocannl.constant"() {value = 22.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p23 = "ocannl.constant"() {value = 23.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p24 = "ocannl.constant"() {value = 24.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p25 = "ocannl.constant"() {value = 25.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p26 = "ocannl.constant"() {value = 26.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p27 = "ocannl.constant"() {value = 27.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p28 = "ocannl.constant"() {value = 28.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p29 = "ocannl.constant"() {value = 29.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p30 = "ocannl.constant"() {value = 30.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p31 = "ocannl.constant"() {value = 31.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p32 = "ocannl.constant"() {value = 32.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p33 = "ocannl.constant"() {value = 33.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p34 = "ocannl.constant"() {value = 34.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p35 = "ocannl.constant"() {value = 35.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p36 = "ocannl.constant"() {value = 36.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p37 = "ocannl.constant"() {value = 37.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p38 = "ocannl.constant"() {value = 38.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p39 = "ocannl.constant"() {value = 39.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p40 = "ocannl.constant"() {value = 40.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p41 = "ocannl.constant"() {value = 41.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p42 = "ocannl.constant"() {value = 42.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p43 = "ocannl.constant"() {value = 43.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p44 = "ocannl.constant"() {value = 44.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p45 = "ocannl.constant"() {value = 45.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p46 = "ocannl.constant"() {value = 46.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p47 = "ocannl.constant"() {value = 47.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p48 = "ocannl.constant"() {value = 48.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p49 = "ocannl.constant"() {value = 49.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p50 = "ocannl.constant"() {value = 50.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p51 = "ocannl.constant"() {value = 51.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p52 = "ocannl.constant"() {value = 52.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p53 = "ocannl.constant"() {value = 53.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p54 = "ocannl.constant"() {value = 54.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p55 = "ocannl.constant"() {value = 55.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p56 = "ocannl.constant"() {value = 56.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p57 = "ocannl.constant"() {value = 57.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p58 = "ocannl.constant"() {value = 58.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p59 = "ocannl.constant"() {value = 59.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p60 = "ocannl.constant"() {value = 60.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p61 = "ocannl.constant"() {value = 61.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p62 = "ocannl.constant"() {value = 62.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p63 = "ocannl.constant"() {value = 63.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p64 = "ocannl.constant"() {value = 64.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p65 = "ocannl.constant"() {value = 65.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p66 = "ocannl.constant"() {value = 66.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p67 = "ocannl.constant"() {value = 67.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p68 = "ocannl.constant"() {value = 68.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p69 = "ocannl.constant"() {value = 69.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p70 = "ocannl.constant"() {value = 70.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p71 = "ocannl.constant"() {value = 71.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p72 = "ocannl.constant"() {value = 72.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p73 = "ocannl.constant"() {value = 73.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p74 = "ocannl.constant"() {value = 74.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p75 = "ocannl.constant"() {value = 75.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p76 = "ocannl.constant"() {value = 76.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p77 = "ocannl.constant"() {value = 77.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p78 = "ocannl.constant"() {value = 78.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p79 = "ocannl.constant"() {value = 79.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p80 = "ocannl.constant"() {value = 80.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p81 = "ocannl.constant"() {value = 81.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p82 = "ocannl.constant"() {value = 82.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p83 = "ocannl.constant"() {value = 83.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p84 = "ocannl.constant"() {value = 84.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p85 = "ocannl.constant"() {value = 85.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p86 = "ocannl.constant"() {value = 86.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p87 = "ocannl.constant"() {value = 87.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p88 = "ocannl.constant"() {value = 88.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p89 = "ocannl.constant"() {value = 89.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p90 = "ocannl.constant"() {value = 90.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p91 = "ocannl.constant"() {value = 91.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p92 = "ocannl.constant"() {value = 92.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p93 = "ocannl.constant"() {value = 93.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p94 = "ocannl.constant"() {value = 94.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p95 = "ocannl.constant"() {value = 95.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p96 = "ocannl.constant"() {value = 96.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p97 = "ocannl.constant"() {value = 97.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p98 = "ocannl.constant"() {value = 98.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %p99 = "ocannl.constant"() {value = 99.0 : f32} : () -> !ocannl.tensor<f32, "2">
  %r = "ocannl.concat"(%p0, %p1, %p2, %p3, %p4, %p5, %p6, %p7, %p8, %p9, %p10, %p11, %p12, %p13, %p14, %p15, %p16, %p17, %p18, %p19, %p20, %p21, %p22, %p23, %p24, %p25, %p26, %p27, %p28, %p29, %p30, %p31, %p32, %p33, %p34, %p35, %p36, %p37, %p38, %p39, %p40, %p41, %p42, %p43, %p44, %p45, %p46, %p47, %p48, %p49, %p50, %p51, %p52, %p53, %p54, %p55, %p56, %p57, %p58, %p59, %p60, %p61, %p62, %p63, %p64, %p65, %p66, %p67, %p68, %p69, %p70, %p71, %p72, %p73, %p74, %p75, %p76, %p77, %p78, %p79, %p80, %p81, %p82, %p83, %p84, %p85, %p86, %p87, %p88, %p89, %p90, %p91, %p92, %p93, %p94, %p95, %p96, %p97, %p98, %p99) {spec = "a0; a1; a2; a3; a4; a5; a6; a7; a8; a9; a10; a11; a12; a13; a14; a15; a16; a17; a18; a19; a20; a21; a22; a23; a24; a25; a26; a27; a28; a29; a30; a31; a32; a33; a34; a35; a36; a37; a38; a39; a40; a41; a42; a43; a44; a45; a46; a47; a48; a49; a50; a51; a52; a53; a54; a55; a56; a57; a58; a59; a60; a61; a62; a63; a64; a65; a66; a67; a68; a69; a70; a71; a72; a73; a74; a75; a76; a77; a78; a79; a80; a81; a82; a83; a84; a85; a86; a87; a88; a89; a90; a91; a92; a93; a94; a95; a96; a97; a98; a99 => a0^a1^a2^a3^a4^a5^a6^a7^a8^a9^a10^a11^a12^a13^a14^a15^a16^a17^a18^a19^a20^a21^a22^a23^a24^a25^a26^a27^a28^a29^a30^a31^a32^a33^a34^a35^a36^a37^a38^a39^a40^a41^a42^a43^a44^a45^a46^a47^a48^a49^a50^a51^a52^a53^a54^a55^a56^a57^a58^a59^a60^a61^a62^a63^a64^a65^a66^a67^a68^a69^a70^a71^a72^a73^a74^a75^a76^a77^a78^a79^a80^a81^a82^a83^a84^a85^a86^a87^a88^a89^a90^a91^a92^a93^a94^a95^a96^a97^a98^a99"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  return %r : !ocannl.tensor<f32, "...|...->...">
}
