#include "model_file.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/message.h>

#include <cerrno>
#include <climits>
#include <cstring>

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

}  // namespace aoe::host
