// ${...} values become attributes: types follow the value or the schema, and
// tensor(v, dtype) values are encoded where ONNX's TensorProto says, bit-exactly.
#include <cmath>
#include <cstring>

#include <catch2/catch.hpp>

#include "rewrite/attribute_from_value.h"
#include "rules/expression.h"
#include "rules/replacement_template.h"
#include "rules/signature.h"

using namespace remap;
using AP = onnx::AttributeProto;
using TP = onnx::TensorProto;

namespace {

Value Eval(const std::string& text) {
  ExprError e;
  Expression x = Expression::Parse(text, &e);
  INFO(text << ": " << e.message);
  REQUIRE_FALSE(x.empty());
  Value v;
  static const Value self = Value::Tensor("self", TP::FLOAT16, 2);
  bool ok = x.Evaluate([](const std::string& name, std::string*) { return name == "self" ? &self : nullptr; }, &v, &e);
  INFO(text << ": " << e.message);
  REQUIRE(ok);
  return v;
}

// The attribute `text` gives, or an empty attribute with `why` set.
AP Attr(const std::string& text, AP::AttributeType declared, std::string* why = nullptr) {
  AP attr;
  attr.set_name("value");
  std::string reason;
  bool ok = ToAttribute(Eval(text), declared, &attr, &reason);
  if (why) *why = reason;
  INFO(text << ": " << reason);
  CHECK(ok == (why == nullptr));
  return attr;
}

// A tensor attribute's serialized bytes equal those of the tensor built by hand.
void CheckTensor(const std::string& text, AP::AttributeType declared, const TP& expected) {
  AP attr = Attr(text, declared);
  INFO(text << " gave " << attr.t().DebugString() << " expected " << expected.DebugString());
  CHECK(attr.type() == AP::TENSOR);
  CHECK(attr.t().SerializeAsString() == expected.SerializeAsString());
}

TP Tensor(int elem_type, std::vector<int64_t> dims = {}) {
  TP t;
  t.set_data_type(elem_type);
  for (int64_t d : dims) t.add_dims(d);
  return t;
}

uint16_t HalfBits(const std::string& value) {
  AP attr = Attr("tensor(" + value + ", 'float16')", AP::TENSOR);
  REQUIRE(attr.t().int32_data_size() == 1);
  return static_cast<uint16_t>(attr.t().int32_data(0));
}

uint16_t Bfloat16Bits(const std::string& value) {
  AP attr = Attr("tensor(" + value + ", 'bfloat16')", AP::TENSOR);
  REQUIRE(attr.t().int32_data_size() == 1);
  return static_cast<uint16_t>(attr.t().int32_data(0));
}

}  // namespace

TEST_CASE("lists of ints and floats become float tensors and FLOATS", "[attribute]") {
  TP mixed = Tensor(TP::FLOAT, {2});
  mixed.add_float_data(0.5f);
  mixed.add_float_data(1.0f);
  CheckTensor("[0.5, 1]", AP::TENSOR, mixed);
  AP floats = Attr("[1, 2]", AP::FLOATS);
  CHECK(floats.type() == AP::FLOATS);
  CHECK(floats.floats_size() == 2);
  CHECK(floats.floats(1) == 2.0f);
  CHECK(Attr("[1, 2]", AP::UNDEFINED).type() == AP::INTS);
  CHECK(Attr("[0.5, 1]", AP::UNDEFINED).type() == AP::FLOATS);
  CHECK(Attr("3", AP::FLOAT).f() == 3.0f);
  std::string why;
  Attr("[0.5, 1]", AP::INTS, &why);
  CHECK(why == "attribute 'value' takes ints, got [0.5, 1]");
  TP ints = Tensor(TP::INT64, {2, 2});
  for (int64_t v : {1, 2, 3, 4}) ints.add_int64_data(v);
  CheckTensor("[[1, 2], [3, 4]]", AP::TENSOR, ints);
  TP flags = Tensor(TP::BOOL, {2});
  flags.add_int32_data(1);
  flags.add_int32_data(0);
  CheckTensor("[True, False]", AP::TENSOR, flags);
  Attr("[[1], [2, 3]]", AP::TENSOR, &why);
  CHECK(why.find("rectangular list of numbers") != std::string::npos);
  Attr("1e39", AP::TENSOR, &why);
  CHECK(why == "attribute 'value': 1e+39 does not fit in float32");
}

TEST_CASE("tensor() values are encoded in the TensorProto field of their dtype", "[attribute]") {
  TP half = Tensor(TP::FLOAT16);
  half.add_int32_data(0x3800);  // 0.5
  CheckTensor("tensor(0.5, self)", AP::TENSOR, half);
  CheckTensor("tensor(0.5, self)", AP::UNDEFINED, half);  // an operator ONNX does not know
  TP dbl = Tensor(TP::DOUBLE, {2});
  dbl.add_double_data(0.1);
  dbl.add_double_data(1.0);
  CheckTensor("tensor([0.1, 1], 'float64')", AP::TENSOR, dbl);
  TP f32 = Tensor(TP::FLOAT);
  f32.add_float_data(2.0f);
  CheckTensor("tensor(2, 'float32')", AP::TENSOR, f32);
  TP i64 = Tensor(TP::INT64, {2});
  i64.add_int64_data(INT64_MAX);
  i64.add_int64_data(2);
  CheckTensor("tensor([9223372036854775807, 2.0], 'int64')", AP::TENSOR, i64);
  TP i32 = Tensor(TP::INT32, {2});
  i32.add_int32_data(-2147483647 - 1);
  i32.add_int32_data(7);
  CheckTensor("tensor([-2147483648, 7], 'int32')", AP::TENSOR, i32);
  TP i8 = Tensor(TP::INT8);
  i8.add_int32_data(-128);
  CheckTensor("tensor(-128, 'int8')", AP::TENSOR, i8);
  TP u8 = Tensor(TP::UINT8, {1});
  u8.add_int32_data(255);
  CheckTensor("tensor([255], 'uint8')", AP::TENSOR, u8);
  TP u16 = Tensor(TP::UINT16);
  u16.add_int32_data(65535);
  CheckTensor("tensor(65535, 'uint16')", AP::TENSOR, u16);
  TP i16 = Tensor(TP::INT16);
  i16.add_int32_data(-32768);
  CheckTensor("tensor(-32768, 'int16')", AP::TENSOR, i16);
  TP u32 = Tensor(TP::UINT32);
  u32.add_uint64_data(4294967295u);
  CheckTensor("tensor(4294967295, 'uint32')", AP::TENSOR, u32);
  TP u64 = Tensor(TP::UINT64, {2});
  u64.add_uint64_data(0);
  u64.add_uint64_data(9223372036854775807u);
  CheckTensor("tensor([0, 9223372036854775807], 'uint64')", AP::TENSOR, u64);
  TP b = Tensor(TP::BOOL, {3});
  for (int v : {1, 0, 1}) b.add_int32_data(v);
  CheckTensor("tensor([True, 0, 1.0], 'bool')", AP::TENSOR, b);
  TP grid = Tensor(TP::FLOAT16, {2, 1});
  grid.add_int32_data(0x3C00);
  grid.add_int32_data(0xC000);
  CheckTensor("tensor([[1], [-2]], self)", AP::TENSOR, grid);

  std::string why;
  Attr("tensor(0.5, self)", AP::FLOAT, &why);
  CHECK(why == "attribute 'value' is not a tensor attribute; tensor(0.5, \"float16\") makes a tensor");
}

TEST_CASE("float16 and bfloat16 round to nearest even from the double", "[attribute]") {
  CHECK(HalfBits("0.1") == 0x2E66);
  CHECK(HalfBits("65504") == 0x7BFF);
  CHECK(HalfBits("65519.99") == 0x7BFF);
  CHECK(HalfBits("-2") == 0xC000);
  CHECK(HalfBits("-0.0") == 0x8000);
  CHECK(HalfBits("1e-8") == 0x0000);  // below half the smallest subnormal
  CHECK(HalfBits("3e-8") == 0x0001);  // just above half: rounds up to 2^-24
  CHECK(HalfBits("2**-25") == 0x0000);  // exactly half: ties to even (0)
  CHECK(HalfBits("6e-8") == 0x0001);
  CHECK(HalfBits("1e-7") == 0x0002);
  CHECK(HalfBits("6.1e-5") == 0x03FF);  // the largest subnormal
  CHECK(HalfBits("6.103515625e-05") == 0x0400);  // the smallest normal, 2^-14
  CHECK(HalfBits("1 + 2**-11") == 0x3C00);  // a tie goes to even
  CHECK(HalfBits("1 + 3 * 2**-11") == 0x3C02);
  // Just above the tie: through float32 this would round twice and give 0x3C00.
  CHECK(HalfBits("1 + 2**-11 + 2**-40") == 0x3C01);
  CHECK(HalfBits("float('inf')") == 0x7C00);
  CHECK(HalfBits("float('-inf')") == 0xFC00);
  CHECK(HalfBits("float('nan')") == 0x7E00);
  CHECK(Bfloat16Bits("0.1") == 0x3DCD);
  CHECK(Bfloat16Bits("1") == 0x3F80);
  CHECK(Bfloat16Bits("3.14159") == 0x4049);
  CHECK(Bfloat16Bits("1 + 2**-8") == 0x3F80);
  CHECK(Bfloat16Bits("1 + 3 * 2**-8") == 0x3F82);
  CHECK(Bfloat16Bits("float('nan')") == 0x7FC0);
  CHECK(Bfloat16Bits("-math.inf") == 0xFF80);
}

// Typed tensor literals of ONNX's text syntax, as docs/rule-format.md shows
// them, parse with ONNX 1.12's OnnxParser inside a replacement.
TEST_CASE("replacements take ONNX text typed literals", "[attribute]") {
  Signature sig;
  SignatureError serr;
  REQUIRE(ParseSignature("aten::x(Tensor self) -> Tensor", &sig, &serr));
  auto compile = [&](const std::string& text) {
    ReplacementTemplate tpl;
    TemplateError e;
    bool ok = ReplacementTemplate::Compile(text, sig, &tpl, &e);
    INFO(text << ": " << e.message);
    REQUIRE(ok);
    REQUIRE(tpl.items().size() == 1);
    const auto& nodes = tpl.items()[0].nodes;
    REQUIRE(nodes.size() == 2);
    REQUIRE(nodes[0].attribute_size() == 1);
    const AP& a = nodes[0].attribute(0);
    CHECK(a.type() == AP::TENSOR);
    return a.t();
  };
  TP half = compile("c = Constant<value = double {0.5}>()\nout = Add(self, c)");
  CHECK(half.data_type() == TP::DOUBLE);
  CHECK(half.dims_size() == 0);
  REQUIRE(half.double_data_size() == 1);
  CHECK(half.double_data(0) == 0.5);
  TP pair = compile("c = Constant<value = int64[2] {1, 2}>()\nout = Reshape(self, c)");
  CHECK(pair.data_type() == TP::INT64);
  CHECK(pair.dims_size() == 1);
  CHECK(pair.dims(0) == 2);
  REQUIRE(pair.int64_data_size() == 2);
  CHECK(pair.int64_data(1) == 2);
  TP f = compile("c = Constant<value = float[2, 1] {0.5, 1}>()\nout = Mul(self, c)");
  CHECK(f.data_type() == TP::FLOAT);
  CHECK(f.dims_size() == 2);
  CHECK(f.float_data_size() == 2);
}
