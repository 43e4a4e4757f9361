// A model file as every frontend opens it: there, a file, under protobuf's
// 2 GB, readable; and a protobuf message read from it whole, binary or text.
#pragma once

#include <filesystem>
#include <fstream>
#include <istream>
#include <string>

namespace google::protobuf {
class Message;
}

namespace aoe::host {

// `kind` names the file in messages ("ONNX model", "Caffe weights") and
// `option` the flag that gave it ("--model"). Throws sdk::Error naming both.
std::ifstream open_model_file(const std::filesystem::path& path, const std::string& kind, const std::string& option);

// False when `in` does not hold one whole message of that type.
bool parse_binary_message(google::protobuf::Message& message, std::istream& in);

// An empty string, or the first error of reading `in` as a text-format
// message ("line 3, column 5: ..."); fields the message lacks are skipped
// when `skip_unknown`.
std::string parse_text_message(google::protobuf::Message& message, std::istream& in, bool skip_unknown);

// "'path'": how messages show a file.
std::string quoted(const std::filesystem::path& path);

}  // namespace aoe::host
