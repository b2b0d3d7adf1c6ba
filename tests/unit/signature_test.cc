#include <catch2/catch.hpp>

#include "rules/signature.h"

using namespace remap;

TEST_CASE("signatures in PyTorch schema syntax", "[signature]") {
  Signature sig;
  SignatureError e;
  REQUIRE(ParseSignature("aten::logit(Tensor self, float? eps=None) -> Tensor", &sig, &e));
  CHECK(sig.ns == "aten");
  CHECK(sig.name == "logit");
  REQUIRE(sig.args.size() == 2);
  CHECK(sig.args[1].type == ArgType::kFloat);
  CHECK(sig.args[1].optional);
  CHECK(sig.args[1].default_value->is_none());
  CHECK(sig.returns == std::vector<std::string>{"out"});

  Signature cm;
  REQUIRE(ParseSignature("aten::cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)", &cm, &e));
  CHECK(cm.returns == std::vector<std::string>{"values", "indices"});

  Signature many;
  REQUIRE(ParseSignature("aten::f.out(Tensor(a!) self, *, int[2] k=1, Scalar alpha=1, str mode='mean', "
                         "ScalarType? dtype=None, int reduction=Mean) -> (Tensor, Tensor)", &many, &e));
  CHECK(many.overload == "out");
  CHECK(many.args[1].type == ArgType::kIntList);
  CHECK(ToString(*many.args[1].default_value) == "[1, 1]");
  CHECK(many.args[3].default_value->s == "mean");
  CHECK(many.args[5].default_value->i == 1);
  CHECK(many.returns == std::vector<std::string>{"out0", "out1"});
}

TEST_CASE("signature errors carry an offset", "[signature]") {
  Signature sig;
  SignatureError e;
  CHECK_FALSE(ParseSignature("aten::f(Tensor self, Frob x) -> Tensor", &sig, &e));
  CHECK(e.offset == 21);
  CHECK(e.message == "unknown argument type 'Frob'");
  Signature dup;
  CHECK_FALSE(ParseSignature("aten::f(Tensor a, int a)", &dup, &e));
  CHECK(e.message == "argument 'a' is declared twice");
  Signature ret;
  CHECK_FALSE(ParseSignature("aten::f(Tensor a) -> Tensor a", &ret, &e));
  CHECK(e.message.find("has the name of an argument") != std::string::npos);
}

TEST_CASE("Tensor?[] is a tensor list with optional elements", "[signature]") {
  Signature sig;
  SignatureError e;
  REQUIRE(ParseSignature("aten::index(Tensor self, Tensor?[] indices, Tensor[]? more=None) -> Tensor", &sig, &e));
  CHECK(sig.args[1].type == ArgType::kTensorList);
  CHECK(sig.args[1].optional_elements);
  CHECK_FALSE(sig.args[1].optional);
  CHECK(sig.args[1].type_text == "Tensor?[]");
  CHECK(sig.args[2].type == ArgType::kTensorList);
  CHECK_FALSE(sig.args[2].optional_elements);
  CHECK(sig.args[2].optional);
  Signature bad;
  CHECK_FALSE(ParseSignature("aten::f(Tensor self, int?[] k) -> Tensor", &bad, &e));
  CHECK(e.message == "'int?[]': only Tensor lists may have None elements");
}
