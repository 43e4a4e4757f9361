// parse_input_shape: AOE's --input_shape text, good and bad.
#include <gtest/gtest.h>

#include <ostream>

#include "aoe/sdk/error.h"
#include "frontend/onnx_frontend.h"

namespace aoe::host {
namespace {

using sdk::Error;
using sdk::StatusCode;

TEST(InputShape, ParsesSeveralInputs) {
  const auto shapes = parse_input_shape("x:1,3,640,640;y:1,10");
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes.at("x"), (std::vector<int64_t>{1, 3, 640, 640}));
  EXPECT_EQ(shapes.at("y"), (std::vector<int64_t>{1, 10}));
}

TEST(InputShape, ToleratesSpacesAndATrailingSemicolon) {
  const auto shapes = parse_input_shape(" tokens : 1, 128 ,768 ; ");
  ASSERT_EQ(shapes.size(), 1u);
  EXPECT_EQ(shapes.at("tokens"), (std::vector<int64_t>{1, 128, 768}));
}

TEST(InputShape, NameMayContainAColon) {
  const auto shapes = parse_input_shape("input:0:4,224");
  ASSERT_EQ(shapes.count("input:0"), 1u);
  EXPECT_EQ(shapes.at("input:0"), (std::vector<int64_t>{4, 224}));
}

// A decoder's first step feeds its past keys and values empty.
TEST(InputShape, ADimMayBeZero) {
  EXPECT_EQ(parse_input_shape("past:2,1,4,0,16").at("past"), (std::vector<int64_t>{2, 1, 4, 0, 16}));
}

TEST(InputShape, EmptyTextMeansNoOverrides) {
  EXPECT_TRUE(parse_input_shape("").empty());
  EXPECT_TRUE(parse_input_shape("  ").empty());
}

// Each bad text must fail as invalid_argument, name the offending part and show the form.
struct BadCase {
  const char* label;
  const char* text;
  const char* named;
};

// Readable, stable test names in ctest instead of the object's bytes.
void PrintTo(const BadCase& c, std::ostream* os) { *os << c.text; }

class BadInputShape : public testing::TestWithParam<BadCase> {};

TEST_P(BadInputShape, FailsNamingThePart) {
  try {
    parse_input_shape(GetParam().text);
    FAIL() << "accepted '" << GetParam().text << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::invalid_argument);
    const std::string message = e.what();
    EXPECT_NE(message.find(GetParam().named), std::string::npos) << message;
    EXPECT_NE(message.find("name:d0,d1"), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, BadInputShape,
                         testing::Values(BadCase{"NoColon", "x", "'x'"},
                                         BadCase{"NoDims", "x:", "no dims"},
                                         BadCase{"NoName", ":1,2", "name is empty"},
                                         BadCase{"NotANumber", "x:1,a", "dim 'a'"},
                                         BadCase{"MinusOne", "x:1,-1", "dim '-1'"},
                                         BadCase{"QuestionMark", "x:1,?", "dim '?'"},
                                         BadCase{"MissingDim", "x:1,,3", "dim ''"},
                                         BadCase{"Fraction", "x:1.5", "dim '1.5'"},
                                         BadCase{"Overflow", "x:99999999999999999999", "dim '9"},
                                         BadCase{"EmptyEntry", "x:1;;y:2", "empty entry"},
                                         BadCase{"Duplicate", "x:1;x:2", "given twice"}),
                         [](const testing::TestParamInfo<BadCase>& info) { return info.param.label; });

}  // namespace
}  // namespace aoe::host
