#include "model_file.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <sstream>

#include "aoe/sdk/error.h"

namespace aoe::host {

namespace fs = std::filesystem;
using sdk::Error;
using sdk::StatusCode;

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

std::ifstream open_model_file(const fs::path& path, const std::string& kind, const std::string& option) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error(StatusCode::not_found, kind + " " + quoted(path) + " does not exist; check the " + option + " path");
  if (fs::is_directory(path, ec))
    throw Error(StatusCode::invalid_argument, kind + " " + quoted(path) + " is a directory; pass the file itself");
  const auto size = fs::file_size(path, ec);
  if (!ec && size >= static_cast<uintmax_t>(INT_MAX))
    throw Error(StatusCode::unsupported,
                kind + " " + quoted(path) + " is " + std::to_string(size) +
                    " bytes; protobuf cannot parse a message of 2 GB or more: save the model with its "
                    "weights as external data");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(StatusCode::io, "cannot open " + kind + " " + quoted(path) + ": " + std::strerror(errno) +
                                    "; check that it is readable");
  return in;
}

bool parse_binary_message(google::protobuf::Message& message, std::istream& in) {
  google::protobuf::io::IstreamInputStream raw(&in);
  google::protobuf::io::CodedInputStream coded(&raw);
  // Older protobufs refuse messages over 64 MB by default; real models are bigger.
  coded.SetTotalBytesLimit(INT_MAX);
  return message.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

namespace {

// The first error the text parser reports, with where it is.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (text_.empty())
      text_ = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) + ": " + message;
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

}  // namespace

std::string parse_text_message(google::protobuf::Message& message, std::istream& in, bool skip_unknown) {
  std::stringstream text;
  text << in.rdbuf();
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(skip_unknown);
  if (parser.ParseFromString(text.str(), &message)) return "";
  return errors.text().empty() ? "not a text-format message" : errors.text();
}

}  // namespace aoe::host
