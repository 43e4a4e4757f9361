#include "expression.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

#include "aoe/sdk/error.h"

namespace aoe::replay {

using sdk::Error;
using sdk::StatusCode;

enum class Op { add, sub, mul, div, floordiv, mod, pow, neg, pos, not_, and_, or_, lt, le, gt, ge, eq, ne };

struct Expression::Node {
  enum class Kind { constant, variable, unary, binary, compare, logic } kind;
  Number value;                              // constant
  size_t slot = 0;                           // variable
  Op op = Op::add;                           // unary, binary, logic
  std::vector<std::unique_ptr<Node>> args;   // operands, left to right
  std::vector<Op> comparisons;               // compare: between args[i] and args[i + 1]
};

namespace {

using Node = Expression::Node;
using NodePtr = std::unique_ptr<Node>;

struct Token {
  enum class Kind { number, name, op, end } kind;
  std::string text;
  size_t column;  // 1-based, for messages
};

NodePtr make(Node::Kind kind) {
  auto n = std::make_unique<Node>();
  n->kind = kind;
  return n;
}

class Parser {
 public:
  Parser(const std::string& text, const ExpressionNames& names, const std::string& where, const std::string& what)
      : text_(text), names_(names), where_(where), what_(what) {
    tokenize();
  }

  NodePtr parse() {
    auto root = or_expr();
    if (peek().kind != Token::Kind::end) fail("unexpected '" + peek().text + "'", peek().column);
    return root;
  }
  std::vector<size_t> uses() const {
    std::vector<size_t> out(used_.begin(), used_.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what, size_t column) const {
    throw Error(StatusCode::invalid_argument, where_ + ": cannot parse " + what_ + " \"" + text_ + "\": " + what +
                                                  " at column " + std::to_string(column));
  }

  void tokenize() {
    static const char* const two_char_ops[] = {"**", "//", "<=", ">=", "==", "!="};
    size_t i = 0;
    while (i < text_.size()) {
      const char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      const size_t start = i;
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && i + 1 < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i + 1])))) {
        while (i < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '.' ||
                                    ((text_[i] == '+' || text_[i] == '-') && (text_[i - 1] == 'e' || text_[i - 1] == 'E'))))
          ++i;
        tokens_.push_back({Token::Kind::number, text_.substr(start, i - start), start + 1});
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        while (i < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '_')) ++i;
        tokens_.push_back({Token::Kind::name, text_.substr(start, i - start), start + 1});
        continue;
      }
      bool matched = false;
      for (const char* op : two_char_ops)
        if (text_.compare(i, 2, op) == 0) {
          tokens_.push_back({Token::Kind::op, op, start + 1});
          i += 2;
          matched = true;
          break;
        }
      if (matched) continue;
      // Any other character is a token of its own, so the parser can say
      // what it expected there.
      tokens_.push_back({Token::Kind::op, std::string(1, c), start + 1});
      ++i;
    }
    tokens_.push_back({Token::Kind::end, "end of expression", text_.size() + 1});
  }

  const Token& peek() const { return tokens_[at_]; }
  bool accept(const char* text) {
    const Token& t = peek();
    if (t.kind == Token::Kind::end || t.text != text) return false;
    ++at_;
    return true;
  }

  NodePtr logic(Op op, NodePtr first, NodePtr (Parser::*next)(), const char* keyword) {
    if (peek().text != keyword) return first;
    auto n = make(Node::Kind::logic);
    n->op = op;
    n->args.push_back(std::move(first));
    while (accept(keyword)) n->args.push_back((this->*next)());
    return n;
  }
  NodePtr or_expr() { return logic(Op::or_, and_expr(), &Parser::and_expr, "or"); }
  NodePtr and_expr() { return logic(Op::and_, not_expr(), &Parser::not_expr, "and"); }
  NodePtr not_expr() {
    if (!accept("not")) return comparison();
    auto n = make(Node::Kind::unary);
    n->op = Op::not_;
    n->args.push_back(not_expr());
    return n;
  }

  NodePtr comparison() {
    static const std::pair<const char*, Op> ops[] = {{"<=", Op::le}, {">=", Op::ge}, {"==", Op::eq},
                                                    {"!=", Op::ne}, {"<", Op::lt},  {">", Op::gt}};
    auto first = arith();
    NodePtr chain;
    for (;;) {
      const Op* found = nullptr;
      for (const auto& [text, op] : ops)
        if (peek().kind == Token::Kind::op && peek().text == text) found = &op;
      if (!found) break;
      ++at_;
      if (!chain) {
        chain = make(Node::Kind::compare);
        chain->args.push_back(std::move(first));
      }
      chain->comparisons.push_back(*found);
      chain->args.push_back(arith());
    }
    return chain ? std::move(chain) : std::move(first);
  }

  NodePtr binary(Op op, NodePtr l, NodePtr r) {
    auto n = make(Node::Kind::binary);
    n->op = op;
    n->args.push_back(std::move(l));
    n->args.push_back(std::move(r));
    return n;
  }

  NodePtr arith() {
    auto n = term();
    for (;;) {
      if (accept("+")) n = binary(Op::add, std::move(n), term());
      else if (accept("-")) n = binary(Op::sub, std::move(n), term());
      else return n;
    }
  }
  NodePtr term() {
    auto n = factor();
    for (;;) {
      if (accept("*")) n = binary(Op::mul, std::move(n), factor());
      else if (accept("//")) n = binary(Op::floordiv, std::move(n), factor());
      else if (accept("/")) n = binary(Op::div, std::move(n), factor());
      else if (accept("%")) n = binary(Op::mod, std::move(n), factor());
      else return n;
    }
  }
  NodePtr factor() {
    for (auto [text, op] : {std::pair{"-", Op::neg}, std::pair{"+", Op::pos}}) {
      if (!accept(text)) continue;
      auto n = make(Node::Kind::unary);
      n->op = op;
      n->args.push_back(factor());
      return n;
    }
    return power();
  }
  // ** binds tighter than a unary minus on its left, looser on its right: -2**2 == -4, 2**-1 == 0.5.
  NodePtr power() {
    auto base = atom();
    if (accept("**")) return binary(Op::pow, std::move(base), factor());
    return base;
  }

  NodePtr atom() {
    const Token t = peek();
    if (t.kind == Token::Kind::end) fail("the expression ends early", t.column);
    ++at_;
    if (t.kind == Token::Kind::number) return number(t);
    if (t.kind == Token::Kind::name) {
      if (t.text == "True" || t.text == "False") {
        auto n = make(Node::Kind::constant);
        n->value = Number::of(int64_t{t.text == "True"});
        return n;
      }
      if (peek().text == "(") return extreme(t);
      if (peek().text == "[") return element(t);
      const auto& variables = names_.variables;
      const auto it = std::find(variables.begin(), variables.end(), t.text);
      if (it == variables.end() && names_.domains.count(t.text))
        fail("'" + t.text + "' has many values here: write max(" + t.text + ") or min(" + t.text + ")", t.column);
      if (it == variables.end()) fail("'" + t.text + "' is not a tuning parameter", t.column);
      auto n = make(Node::Kind::variable);
      n->slot = static_cast<size_t>(it - variables.begin());
      used_.push_back(n->slot);
      return n;
    }
    if (t.text == "(") {
      auto inner = or_expr();
      if (!accept(")")) fail("expected ')' but found '" + peek().text + "'", peek().column);
      return inner;
    }
    fail("unexpected '" + t.text + "'", t.column);
  }

  NodePtr constant(Number value) {
    auto n = make(Node::Kind::constant);
    n->value = value;
    return n;
  }

  // max(NAME) or min(NAME) over a parameter's values: the only calls.
  NodePtr extreme(const Token& call) {
    const bool known = call.text == "max" || call.text == "min";
    if (!known || names_.domains.empty())
      fail("calls such as '" + call.text + "(...)' are not supported", call.column);
    accept("(");
    const Token name = peek();
    const auto it = names_.domains.find(name.text);
    if (name.kind != Token::Kind::name || it == names_.domains.end() || it->second.empty())
      fail(call.text + "() takes the name of a tuning parameter, not '" + name.text + "'", name.column);
    ++at_;
    if (!accept(")")) fail("expected ')' but found '" + peek().text + "'", peek().column);
    const auto less = [](const Number& a, const Number& b) { return a.real() < b.real(); };
    const auto& values = it->second;
    return constant(call.text == "max" ? *std::max_element(values.begin(), values.end(), less)
                                       : *std::min_element(values.begin(), values.end(), less));
  }

  // NAME[i] of a sequence, i a literal index.
  NodePtr element(const Token& name) {
    const auto it = names_.sequences.find(name.text);
    if (it == names_.sequences.end()) fail("'" + name.text + "' cannot be indexed", name.column);
    accept("[");
    const Token index = peek();
    const size_t size = it->second.size();
    if (index.kind != Token::Kind::number || index.text.find_first_not_of("0123456789") != std::string::npos ||
        std::strtoull(index.text.c_str(), nullptr, 10) >= size)
      fail(name.text + " has " + std::to_string(size) + " entries: an index from 0 to " + std::to_string(size - 1) +
               " is needed, not '" + index.text + "'",
           index.column);
    ++at_;
    if (!accept("]")) fail("expected ']' but found '" + peek().text + "'", peek().column);
    return constant(it->second[std::strtoull(index.text.c_str(), nullptr, 10)]);
  }

  NodePtr number(const Token& t) {
    auto n = make(Node::Kind::constant);
    const char* s = t.text.c_str();
    char* end = nullptr;
    if (t.text.find_first_of(".eE") == std::string::npos) {
      errno = 0;
      n->value = Number::of(static_cast<int64_t>(std::strtoll(s, &end, 10)));
      if (errno == ERANGE) fail("'" + t.text + "' is past 64-bit integers", t.column);
    } else {
      n->value = Number::of(std::strtod(s, &end));
    }
    if (end != s + t.text.size()) fail("'" + t.text + "' is not a number", t.column);
    return n;
  }

  const std::string& text_;
  const ExpressionNames& names_;
  const std::string& where_;
  const std::string& what_;
  std::vector<Token> tokens_;
  size_t at_ = 0;
  std::vector<size_t> used_;
};

// Evaluates as Python does for ints and floats.
class Evaluator {
 public:
  Evaluator(const std::vector<Number>& values, const std::string& text, const std::string& what)
      : values_(values), text_(text), what_(what) {}

  Number eval(const Node& n) const {
    switch (n.kind) {
      case Node::Kind::constant: return n.value;
      case Node::Kind::variable: return values_.at(n.slot);
      case Node::Kind::unary: return unary(n.op, eval(*n.args[0]));
      case Node::Kind::binary: return binary(n.op, eval(*n.args[0]), eval(*n.args[1]));
      case Node::Kind::compare: return compare(n);
      case Node::Kind::logic: return logic(n);
    }
    return Number::of(int64_t{0});
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(StatusCode::invalid_argument, what_ + " \"" + text_ + "\": " + what);
  }

  // Python's ints are unbounded: past 64 bits the expression is refused, not wrapped.
  [[noreturn]] void too_big() const { fail("an integer past 64 bits"); }
  // `result` by reference: it is read after the builtin wrote it, whichever
  // argument the compiler evaluates first (g++ takes the last one first).
  int64_t checked(bool overflowed, const int64_t& result) const {
    if (overflowed) too_big();
    return result;
  }

  static Number boolean(bool b) { return Number::of(int64_t{b}); }

  Number unary(Op op, Number a) const {
    if (op == Op::not_) return boolean(!a.truthy());
    if (op == Op::pos) return a;
    if (a.is_int && a.i == INT64_MIN) too_big();
    return a.is_int ? Number::of(-a.i) : Number::of(-a.f);
  }

  Number binary(Op op, Number a, Number b) const {
    const bool ints = a.is_int && b.is_int;
    int64_t r = 0;
    if (ints && a.i == INT64_MIN && b.i == -1 && (op == Op::floordiv || op == Op::mod)) too_big();
    switch (op) {
      case Op::add: return ints ? Number::of(checked(__builtin_add_overflow(a.i, b.i, &r), r)) : Number::of(a.real() + b.real());
      case Op::sub: return ints ? Number::of(checked(__builtin_sub_overflow(a.i, b.i, &r), r)) : Number::of(a.real() - b.real());
      case Op::mul: return ints ? Number::of(checked(__builtin_mul_overflow(a.i, b.i, &r), r)) : Number::of(a.real() * b.real());
      case Op::div:
        if (b.real() == 0) fail("division by zero");
        return Number::of(a.real() / b.real());
      case Op::floordiv:
        if (b.real() == 0) fail("integer division or modulo by zero");
        if (ints) {
          int64_t q = a.i / b.i;
          if ((a.i % b.i != 0) && ((a.i < 0) != (b.i < 0))) --q;
          return Number::of(q);
        }
        return Number::of(std::floor(a.real() / b.real()));
      case Op::mod:
        if (b.real() == 0) fail("integer division or modulo by zero");
        if (ints) {
          r = a.i % b.i;
          if (r != 0 && ((r < 0) != (b.i < 0))) r += b.i;
          return Number::of(r);
        } else {
          double r = std::fmod(a.real(), b.real());
          if (r != 0 && ((r < 0) != (b.real() < 0))) r += b.real();
          return Number::of(r);
        }
      case Op::pow:
        if (ints && b.i >= 0) {
          if (a.i == 0 || a.i == 1) return Number::of(b.i == 0 ? int64_t{1} : a.i);
          if (a.i == -1) return Number::of(b.i % 2 ? int64_t{-1} : int64_t{1});
          r = 1;  // |a| >= 2 overflows within 63 steps
          for (int64_t k = 0; k < b.i; ++k) checked(__builtin_mul_overflow(r, a.i, &r), r);
          return Number::of(r);
        }
        if (a.real() == 0 && b.real() < 0) fail("zero to a negative power");
        return Number::of(std::pow(a.real(), b.real()));
      default: break;
    }
    fail("an operator it cannot apply");
  }

  static bool compares(Op op, Number a, Number b) {
    const bool ints = a.is_int && b.is_int;
    const auto lt = [&](Number x, Number y) { return ints ? x.i < y.i : x.real() < y.real(); };
    const auto eq = [&](Number x, Number y) { return ints ? x.i == y.i : x.real() == y.real(); };
    switch (op) {
      case Op::lt: return lt(a, b);
      case Op::le: return lt(a, b) || eq(a, b);
      case Op::gt: return lt(b, a);
      case Op::ge: return lt(b, a) || eq(a, b);
      case Op::eq: return eq(a, b);
      case Op::ne: return !eq(a, b);
      default: return false;
    }
  }

  // a < b <= c is a < b and b <= c, each operand evaluated once.
  Number compare(const Node& n) const {
    Number left = eval(*n.args[0]);
    for (size_t i = 0; i < n.comparisons.size(); ++i) {
      const Number right = eval(*n.args[i + 1]);
      if (!compares(n.comparisons[i], left, right)) return boolean(false);
      left = right;
    }
    return boolean(true);
  }

  // Python's and/or yield an operand, and stop at the first that decides.
  Number logic(const Node& n) const {
    Number v;
    for (const auto& arg : n.args) {
      v = eval(*arg);
      if (n.op == Op::and_ ? !v.truthy() : v.truthy()) return v;
    }
    return v;
  }

  const std::vector<Number>& values_;
  const std::string& text_;
  const std::string& what_;
};

}  // namespace

Expression::Expression(std::string text, const ExpressionNames& names, const std::string& where, const std::string& what)
    : text_(std::move(text)), where_(where), what_(what) {
  Parser parser(text_, names, where, what_);
  root_ = parser.parse();
  uses_ = parser.uses();
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

Number Expression::evaluate(const std::vector<Number>& values) const {
  return Evaluator(values, text_, where_ + ": " + what_).eval(*root_);
}

}  // namespace aoe::replay
